"""The offline protocol agents' library, as data: exercise templates, audience profiles,
and the word lists the offline critics and drafter share. No logic lives here; the
composition is in protocol_offline.py, the rubrics in protocol_critics.py.

Template placeholders: {setting} (where/when the audience would practise) and {support}
(the people the audience can turn to). Each step is (core, warm): the core is the action,
the warm sentence validates; a colder first draft leaves the warm sentences out.
Template sentences avoid words the safety screen or the empathy rubric would object to
(no "just", no "hold your breath", no medication talk)."""

from __future__ import annotations

from typing import Any

# --------------------------------------------------------------------------------------
# Exercise templates (one per protocol.EXERCISE_TYPES entry)
# --------------------------------------------------------------------------------------

# "keywords" are regular-expression fragments matched after a word boundary in the intent,
# so "depress" also finds "depressed" and "exams?\b" does not find "example"; the
# weights add up per exercise and the highest total wins (ties: library order).
TEMPLATES: dict[str, dict[str, Any]] = {
    "thought_record": {
        "title": "Thought record",
        "keywords": {
            "negative thought": 4, "automatic thought": 4, "thought record": 5,
            "thoughts?\\b": 1, "thinking": 1, "self-critic": 3, "self critic": 3,
            "inner critic": 3, "guilt": 2, "shame": 2, "angry": 1, "anger": 1,
            "feelings": 1, "mood swings": 2, "track(ing)?\\b": 1,
        },
        "purpose": (
            "A thought record helps you slow down a hard moment and look at the thought "
            "behind your feelings.",
            "Writing the thought down makes it easier to see it clearly and to find a more "
            "balanced way of looking at things.",
        ),
        "warm": "It's understandable to get caught up in painful thoughts; many people do.",
        "steps": (
            ("Find a few minutes {setting} and pick a recent moment when your mood changed.",
             "Take your time; a small moment is fine."),
            ("Write down where you were and what was happening, then name the emotions you "
             "felt and rate each one from 0 to 100.", "Any feeling is okay to write down."),
            ("Write the thought that went through your mind right before the feeling "
             "changed.", None),
            ("List the evidence that supports the thought and the evidence that does not "
             "fit it.", "Be kind to yourself as you do this."),
            ("Write a more balanced thought that takes all of the evidence into account.",
             "Ask yourself what you would say to a friend in the same place."),
            ("Rate your emotions again from 0 to 100 and notice any change.",
             "Even a small shift counts, and it's okay if nothing changes yet."),
        ),
        "extra_steps": (
            "Keep your thought records in one place, such as a notebook or your phone.",
            "Look back over your records at the end of the week and notice any patterns.",
        ),
        "reflection": (
            "What did you notice about the thought once it was written down?",
            "How did your feelings change after you wrote the balanced thought?",
            "What would you say to a friend who had the same thought?",
            "When could you use a thought record again this week?",
        ),
        "safety_extra": "If writing about a memory brings up strong distress, pause and "
                        "come back to it with your clinician.",
    },
    "cognitive_restructuring": {
        "title": "Challenging unhelpful thoughts",
        "keywords": {
            "catastroph": 4, "distortion": 4, "thinking trap": 4, "all-or-nothing": 3,
            "black and white": 3, "perfectionis": 4, "self-esteem": 3, "self esteem": 3,
            "reframe": 4, "restructur": 5, "challenge": 2, "beliefs": 2, "negative thought": 2,
            "imposter": 3, "impostor": 3, "worst case": 3, "not good enough": 3,
            "confidence": 2, "body image": 2,
        },
        "purpose": (
            "This exercise helps you notice thinking traps and try out a fairer, more "
            "balanced view.",
            "Thoughts are not facts, and looking at them closely can ease how strongly they "
            "hit you.",
        ),
        "warm": "It makes sense that some thoughts feel very convincing, especially when "
                "you are stressed.",
        "steps": (
            ("Notice a thought that upsets you and write it down word for word.",
             "There is no right or wrong thought to start with."),
            ("Name the thinking trap it might fit, such as catastrophising, all-or-nothing "
             "thinking or mind reading.", None),
            ("Ask yourself what evidence supports this thought and what evidence does not.",
             "Take your time with this."),
            ("Consider what you would say to a good friend who had this thought.",
             "Be as kind to yourself as you would be to them."),
            ("Write a fairer, more balanced thought in your own words.", None),
            ("Rate from 0 to 100 how much you believe the old thought and the new one.",
             "It's okay if the new thought feels only a little true at first."),
        ),
        "extra_steps": (
            "Read your balanced thought aloud once a day this week.",
            "Share your balanced thought with {support} if that feels helpful.",
        ),
        "reflection": (
            "Which thinking trap shows up for you most often?",
            "How did your feelings change when you looked at the evidence?",
            "What helped you find a more balanced thought?",
            "How could you remind yourself of the new thought next time?",
        ),
        "safety_extra": "If a thought feels overwhelming or frightening, stop the exercise "
                        "and talk it through with your clinician.",
    },
    "behavioural_activation": {
        "title": "Small steps back to activity",
        "keywords": {
            "low mood": 5, "depress": 4, "motivation": 4, "unmotivated": 4, "no energy": 3,
            "withdraw": 3, "isolat": 3, "lonely": 3, "loneliness": 3, "out of bed": 3,
            "lost interest": 4, "enjoy": 2, "behavioural activation": 5,
            "behavioral activation": 5, "stuck at home": 2, "grief": 2, "apathy": 3,
            "sad(ness)?\\b": 2, "retire": 1, "bored": 2, "procrastinat": 2,
        },
        "purpose": (
            "When mood is low, it is common to do less, and doing less can make mood lower "
            "still.",
            "This exercise helps you plan small, doable activities that bring back a sense "
            "of pleasure or achievement.",
        ),
        "warm": "It's understandable to feel low on energy; you are not alone in this.",
        "steps": (
            ("Write down what you did yesterday, hour by hour, and rate your mood for each "
             "part of the day from 0 to 10.", "Be gentle with yourself about what you see."),
            ("List a few activities that used to give you pleasure or a sense of achievement.",
             None),
            ("Choose one small activity you could do {setting}, such as a short walk or "
             "calling a friend.", "Small steps count."),
            ("Put the activity in your diary with a day and a time.", None),
            ("Do the activity and rate your mood before and after it from 0 to 10.",
             "Give yourself credit for trying, whatever the result."),
            ("Plan the next activity, making it a little bigger only if the last one felt "
             "manageable.", "Go at your own pace."),
        ),
        "extra_steps": (
            "Tell {support} about your plan so they can cheer you on.",
            "Look back at your week and notice which activities lifted your mood most.",
        ),
        "reflection": (
            "Which activity lifted your mood, even a little?",
            "What got in the way, and what could make it easier next time?",
            "How did your mood before the activity compare with after it?",
            "What small activity would you like to plan for next week?",
        ),
        "safety_extra": "If your mood keeps getting lower, tell your clinician.",
    },
    "graded_exposure": {
        "title": "Facing fears step by step",
        "keywords": {
            "fear": 3, "afraid": 3, "phobia": 5, "avoid": 4, "avoidance": 4, "exposure": 5,
            "social anxiety": 4, "scared": 3, "spider": 4, "heights": 4, "flying": 4,
            "crowd": 3, "driving": 3, "leaving the house": 4, "agoraphobia": 5,
            "public speaking": 4, "presentation": 3, "exams?\\b": 1, "school refusal": 4,
            "dogs": 3, "needles": 4, "speaking up": 3,
        },
        "purpose": (
            "Avoiding what we fear brings relief in the moment, but it can keep the fear "
            "going.",
            "This exercise helps you face a feared situation gradually, one manageable step "
            "at a time, so your confidence can grow.",
        ),
        "warm": "It's understandable to want to stay away from what scares you; that is a "
                "normal human reaction.",
        "steps": (
            ("Write down the situation you avoid and what you fear might happen.",
             "Whatever you fear is okay to write down."),
            ("List eight to ten steps toward it, from easiest to hardest, and rate how "
             "anxious each would make you feel from 0 to 100.", None),
            ("Choose a first step that feels about 30 out of 100, something you could try "
             "{setting}.", "Starting small is a strength, not a weakness."),
            ("Stay with the step until your anxiety eases a little, noticing your feelings "
             "without fighting them.", "It's okay to feel anxious while you do this."),
            ("Repeat the same step several times before you move up to the next one.",
             None),
            ("Write down what happened compared with what you feared would happen.",
             "Give yourself credit for every step, however small."),
        ),
        "extra_steps": (
            "Plan your next step with {support} or your clinician.",
            "Notice any small ways you avoid, such as rushing, and try letting them go.",
        ),
        "reflection": (
            "What did you expect to happen, and what actually happened?",
            "How did your anxiety change the longer you stayed with the step?",
            "What does this tell you about your fear?",
            "Which step would you like to try next?",
        ),
        "safety_extra": "Only practise with situations that are safe in themselves, and "
                        "work through the harder steps together with your clinician.",
    },
    "worry_postponement": {
        "title": "Worry time",
        "keywords": {
            "worry": 5, "worries": 5, "worrying": 5, "worried": 4, "ruminat": 4,
            "overthink": 5, "what if": 4, "generalised anxiety": 4, "generalized anxiety": 4,
            "gad\\b": 3, "racing mind": 3, "can't switch off": 3,
        },
        "purpose": (
            "Worry can take over the whole day when you try to solve every worry the moment "
            "it shows up.",
            "This exercise helps you set worries aside for a short, planned worry time, so "
            "they take up less of your day.",
        ),
        "warm": "Many people worry a lot, and it makes sense that your mind is trying to "
                "protect you.",
        "steps": (
            ("Choose a daily worry time of about 15 minutes, at the same time and place "
             "each day.", "Pick a time that suits you, not too close to bedtime."),
            ("When a worry comes up during the day, write it down in a few words.",
             "It's okay if worries keep coming; writing them down is enough."),
            ("Tell yourself kindly that you will come back to it at worry time.", None),
            ("Bring your attention back to what you were doing, using your senses to "
             "notice the present moment.", None),
            ("At worry time, read through your list and cross out any worries that no "
             "longer bother you.", None),
            ("For each worry you can act on, write one small next step, and let the others "
             "rest until tomorrow.", "Be kind to yourself if some worries still feel big."),
        ),
        "extra_steps": (
            "End your worry time on time and do something that absorbs you.",
            "Keep your worry list for a week and notice how many worries came true.",
        ),
        "reflection": (
            "How did it feel to put a worry aside until later?",
            "How many of your worries still mattered by worry time?",
            "Which worries could you act on, and which were out of your hands?",
            "What helped you bring your attention back to the present?",
        ),
        "safety_extra": "If worry stops you sleeping or eating for days, or feels "
                        "unbearable, talk to your clinician.",
    },
    "problem_solving": {
        "title": "Step-by-step problem solving",
        "keywords": {
            "problem": 4, "decision": 4, "decide": 4, "choice": 3, "choose": 2,
            "overwhelmed": 3, "too much to do": 4, "stuck": 2, "deadline": 3, "debt": 3,
            "money": 3, "financial": 3, "conflict": 2, "options": 3, "workload": 3,
            "practical": 2, "housing": 3, "caregiving": 2, "caring for": 2,
        },
        "purpose": (
            "When a problem feels too big, it can be hard to know where to start.",
            "This exercise breaks a problem into clear steps so you can choose a way "
            "forward and try it out.",
        ),
        "warm": "It's understandable to feel overwhelmed when life piles up; you are doing "
                "your best.",
        "steps": (
            ("Describe the problem in one or two sentences, as clearly and specifically as "
             "you can.", "Take your time; there is no right or wrong way to describe it."),
            ("Brainstorm as many possible solutions as you can, without judging them yet.",
             None),
            ("Write down the pros and cons of each option.", None),
            ("Choose the option that seems most doable right now.",
             "It does not need to be perfect."),
            ("Break the option into small steps and pick a day and time to start.",
             "Small steps count."),
            ("Review how it went and decide whether to keep going, adjust, or try another "
             "option.", "Be kind to yourself if the first try does not work out."),
        ),
        "extra_steps": (
            "Ask {support} for help with one of the steps.",
            "Write down one thing you learned about solving problems this week.",
        ),
        "reflection": (
            "Which solution did you choose, and why?",
            "What went better or worse than you expected?",
            "What would you do differently next time?",
            "Who could help you with the next step?",
        ),
        "safety_extra": "If a problem involves your safety or someone else's, contact "
                        "your clinician or local services straight away.",
    },
    "paced_breathing": {
        "title": "Paced breathing",
        "keywords": {
            "panic": 5, "panic attack": 6, "breath": 4, "breathing": 4, "calm down": 3,
            "heart racing": 4, "exam anxiety": 4, "test anxiety": 4, "nervous": 2,
            "stress": 2, "stressed": 2, "tension": 2, "tense": 2, "anxiety": 2,
            "anxious": 2, "anger": 1, "relax": 3, "overwhelm": 1,
        },
        "purpose": (
            "Slow, steady breathing helps calm your body's alarm system when you feel "
            "anxious or panicky.",
            "With practice, it becomes a tool you can use anywhere to steady yourself.",
        ),
        "warm": "It's understandable to feel frightened when your body races; those feelings "
                "are uncomfortable but they pass.",
        "steps": (
            ("Sit or stand comfortably, {setting}, and rest one hand on your belly.",
             "Take a moment to settle."),
            ("Breathe in gently through your nose for a count of four.", None),
            ("Breathe out slowly through your mouth for a count of six.",
             "Let your shoulders drop as you breathe out."),
            ("Repeat this slow rhythm for about two to five minutes.",
             "It's okay if your mind wanders; gently come back to counting."),
            ("Notice how your body feels now and rate your anxiety from 0 to 10.", None),
            ("Practise once or twice a day when you feel calm, so the skill is ready when "
             "you need it.", "Be kind to yourself while you learn it."),
        ),
        "extra_steps": (
            "Write the counts on a small card or in your phone as a reminder.",
            "Try the breathing in a slightly stressful moment once it feels familiar.",
        ),
        "reflection": (
            "How did your body feel before and after the breathing?",
            "When in your day could you practise?",
            "What made it easier or harder to slow down?",
            "How could you remind yourself to use it when you feel anxious?",
        ),
        "safety_extra": "If you feel dizzy or light-headed, stop and breathe normally for a "
                        "while.",
    },
    "sleep_routine": {
        "title": "A calmer bedtime routine",
        "keywords": {
            "sleep": 5, "insomnia": 6, "lie awake": 5, "lying awake": 5, "bedtime": 4,
            "nights?\\b": 1, "tired": 2, "waking up": 3, "nightmare": 2,
            "shift work": 2, "jet lag": 3,
        },
        "purpose": (
            "Regular habits around bedtime help your body and mind learn when it is time "
            "to sleep.",
            "This exercise helps you build a calm wind-down routine and a steady sleep "
            "rhythm.",
        ),
        "warm": "It's understandable to feel frustrated after poor nights; many people "
                "struggle with sleep at some point.",
        "steps": (
            ("Choose a regular wake-up time and keep to it every day, weekends included.",
             None),
            ("Start a wind-down hour before bed: dim the lights and put screens away.",
             "Pick calm things you enjoy, like reading or gentle music."),
            ("Write down any worries or tomorrow's to-do list before bed, so your mind can "
             "let them go.", None),
            ("Keep your bed for sleep; if you have been awake for what feels like twenty "
             "minutes, get up and do something calm in low light until you feel sleepy.",
             "It's okay to get up; you are not failing."),
            ("Cut down on caffeine after midday and avoid heavy meals late in the evening.",
             None),
            ("Keep a simple sleep diary for a week, noting when you went to bed, when you "
             "woke up and how rested you felt.", "Be patient with yourself; sleep "
             "changes slowly."),
        ),
        "extra_steps": (
            "Get some daylight in the morning, such as a short walk outside.",
            "Make your bedroom cool, dark and quiet if you can.",
        ),
        "reflection": (
            "Which part of the routine helped you feel calmer at night?",
            "What got in the way of your routine, and what could help?",
            "What did your sleep diary show you about your week?",
            "Which one habit would you like to keep going next week?",
        ),
        "safety_extra": "If poor sleep goes on for weeks, or you feel very sleepy in the "
                        "day, talk to your doctor.",
    },
}

DEFAULT_EXERCISE = "thought_record"
"""The stable fallback when no keyword in the intent points anywhere: the most general
CBT technique."""

# --------------------------------------------------------------------------------------
# Audience profiles: matched by substring on the audience, first wins ("parents of teens"
# are parents, so parents come before teens). The last one is the default.
# --------------------------------------------------------------------------------------

AUDIENCES: tuple[dict[str, Any], ...] = (
    {
        "key": "parents",
        "match": ("parent", "mother", "father", "mums", "moms", "dads", "caregiver",
                  "carer"),
        "label": "parents and carers",
        "setting": "in a quiet moment once the day settles",
        "support": "your partner, a friend or your GP",
        "line": "It takes a few minutes and fits around a busy family day.",
        "plain": False,
    },
    {
        "key": "children",
        "match": ("child", "kids", "primary school", "under 12"),
        "label": "children",
        "setting": "at school or at home",
        "support": "a parent, a teacher or another grown-up you trust",
        "line": "You can do it with a grown-up you trust.",
        "plain": True,
    },
    {
        "key": "teens",
        "match": ("teen", "adolescent", "young people", "youth", "high school",
                  "secondary school", "pupils", "13-17", "12-17"),
        "label": "teens",
        "setting": "at school or at home",
        "support": "a parent, a teacher, a school counsellor or another adult you trust",
        "line": "It only takes a few minutes, and you can do it at school or at home.",
        "plain": True,
    },
    {
        "key": "students",
        "match": ("student", "university", "college", "undergrad", "postgrad", "phd",
                  "exam"),
        "label": "students",
        "setting": "between classes or before a study session",
        "support": "a friend, your tutor or your student counselling service",
        "line": "It fits into a busy study week and takes about ten minutes.",
        "plain": False,
    },
    {
        "key": "older_adults",
        "match": ("older", "elderly", "senior", "retire", "aged 65", "65+", "later life",
                  "grandparent"),
        "label": "older adults",
        "setting": "at home, in a comfortable chair",
        "support": "a family member, a friend or your GP",
        "line": "Go at your own pace; there is no rush.",
        "plain": False,
    },
    {
        "key": "workers",
        "match": ("worker", "employee", "staff", "nurse", "doctor", "professional",
                  "manager", "healthcare", "office", "shift", "workplace", "colleague"),
        "label": "working adults",
        "setting": "during a break at work or after a shift",
        "support": "a colleague you trust, your manager or your employee assistance "
                   "programme",
        "line": "It takes about ten minutes and fits around a working day.",
        "plain": False,
    },
    {
        "key": "veterans",
        "match": ("veteran", "military", "service member", "armed forces"),
        "label": "veterans",
        "setting": "somewhere you feel settled",
        "support": "a fellow veteran, a family member or your care team",
        "line": "You can practise it anywhere, at your own pace.",
        "plain": False,
    },
    {
        "key": "adults",
        "match": (),
        "label": "adults",
        "setting": "at a quiet time of day",
        "support": "a friend, a family member or your clinician",
        "line": "It takes about ten minutes.",
        "plain": False,
    },
)

# --------------------------------------------------------------------------------------
# Safety lines. The drafter uses the first candidate that the safety screen accepts.
# --------------------------------------------------------------------------------------

CRISIS_LINES: dict[str, tuple[str, ...]] = {
    "us": (
        "If you feel unsafe or in crisis at any point, call or text 988 (the Suicide and "
        "Crisis Lifeline in the US) or your local emergency number straight away.",
        "If you ever feel unsafe, call or text 988 or contact emergency services right "
        "away.",
    ),
    "uk": (
        "If you feel unsafe or in crisis at any point, call 999 or Samaritans on 116 123, "
        "or go to your nearest A&E.",
        "If you ever feel unsafe, call 999 or Samaritans on 116 123.",
    ),
}
CRISIS_EXTRA = {
    "teens": "You can also tell {support}.",
    "children": "Tell {support} straight away if you feel scared or unsafe.",
    "veterans": "Veterans in the US can call 988 and press 1.",
}
PROFESSIONAL_LINE = ("This exercise does not replace care from your clinician; if things "
                     "feel harder, let them know.")
UK_MARKERS = (" uk", "united kingdom", "britain", "british", "england", "scotland", "wales",
              "nhs", " gp")

# --------------------------------------------------------------------------------------
# Word lists shared by the offline critics and the drafter.
# --------------------------------------------------------------------------------------

CRISIS_PATTERN = (r"\b(988|911|999|112|116 123|crisis (line|text line|lifeline)|lifeline|"
                  r"samaritans|emergency (services|number|department|room)|a&e|hotline|"
                  r"crisis team)\b|\bA&E\b")
PROFESSIONAL_PATTERN = (r"\b(clinician|therapist|doctor|gp|counsell?or|psychologist|"
                        r"psychiatrist|nurse|care team|mental health (professional|team)|"
                        r"professional)s?\b")

VALIDATING_PHRASES = (
    "it's understandable", "it is understandable", "it's okay", "it is okay", "that's okay",
    "is okay to", "it's ok ", "take your time", "be kind to yourself", "as kind to yourself",
    "be gentle with yourself", "be patient with yourself", "many people",
    "you are not alone", "you're not alone", "it makes sense", "no right or wrong",
    "at your own pace", "small steps count", "give yourself credit", "well done",
    "that is a normal", "it's normal", "it is normal", "it's common", "it is common",
    "you are doing your best", "you're doing your best", "with kindness", "kindly",
    "is a strength", "you are not failing", "there is no rush", "even a small",
    "what you would say to a friend",
)

JUDGEMENTAL_SWAPS: dict[str, str] = {
    "should have": "could have",
    "shouldn't have": "wish you had not",
    "no excuses": "at your own pace",
    "get over it": "work through it",
    "snap out of it": "ease out of it",
    "overreacting": "having a strong reaction",
    "over-reacting": "having a strong reaction",
    "lazy": "low on energy",
    "stupid": "hard",
    "pathetic": "painful",
    "silly": "understandable",
    "ridiculous": "understandable",
    "irrational": "unhelpful",
    "obviously": "",
    "just": "",
    "simply": "",
}
"""Judgemental wording and a kinder replacement. Longer phrases first: order matters."""

PLAIN_SWAPS: dict[str, str] = {
    "approximately": "about",
    "immediately": "right away",
    "individuals": "people",
    "utilise": "use",
    "utilize": "use",
    "assistance": "help",
    "sufficient": "enough",
    "numerous": "many",
    "subsequently": "then",
    "frequently": "often",
    "currently": "now",
    "therefore": "so",
    "however": "but",
    "regarding": "about",
    "demonstrate": "show",
    "commence": "start",
    "terminate": "end",
    "attempt": "try",
    "obtain": "get",
    "additional": "more",
    "identify": "find",
    "consider": "think about",
    "difficult": "hard",
    "alternative": "other",
    "particular": "certain",
    "specifically": "clearly",
    "gradually": "slowly",
    "manageable": "doable",
    "emotions": "feelings",
    "activities": "things to do",
    "achievement": "success",
    "catastrophising": "expecting the worst",
    "uncomfortable": "hard",
    "frightened": "scared",
    "attention": "focus",
    "the present moment": "the here and now",
    "rhythm": "pace",
    "endeavour": "try",
    "systematically": "step by step",
    "comprehensive": "full",
    "physiological": "body",
    "cognitions": "thoughts",
    "accompanying": "linked",
    "circumstances": "events",
}
"""Plainer words for "use simpler words" and for young audiences."""

WORDY_CLAUSES = (
    "Subsequently, endeavour to systematically document the accompanying cognitions and "
    "physiological sensations, considering their comprehensive implications for your "
    "overall psychological functioning and wellbeing.",
    "It is additionally recommended that you deliberately contemplate the circumstances "
    "surrounding this particular experience, evaluating alternative interpretations "
    "comprehensively.",
)
"""Over-written elaborations a weaker first draft pads its steps with."""

IMPERATIVE_VERBS = frozenset("""
accept add aim allow answer ask avoid begin book bring brainstorm break breathe build call
carry celebrate challenge change check choose close collect come compare complete consider
continue count create cross cut decide describe design dim do draw drink drop eat end ease
evaluate face fill find finish focus follow gather get give go imagine include invite jot
keep label learn let lie limit list listen look lower make mark move name note notice open
order pause pick picture place plan practise practice prepare print put rank rate re-rate
read reach record reflect relax release remember remind repeat replace rest return review
reward rewrite say schedule see set settle share shift sit slow smile soften speak spend
stand start stay step stretch swap switch take talk tell test text thank think tick track
try turn use visit wake walk watch weigh wind work write play enjoy sing dance cook join
phone email message wash sip hum stop
""".split())
SKIPPABLE_LEADS = frozenset("""
first firstly second secondly third then next now finally lastly also again gently slowly
simply just briefly quietly calmly carefully afterwards later today tonight each every
""".split())

JOURNAL_STEP = ("Write a few lines in a journal about what you noticed today; there is no "
                "right or wrong way to do it.")
TOPIC_STEPS: tuple[tuple[tuple[str, ...], str], ...] = (
    (("journal", "diary", "writing"), JOURNAL_STEP),
    (("breath",), "Take three slow breaths, in through your nose and out through your mouth."),
    (("walk", "exercise", "movement", "moving", "physical activity", "stretch"),
     "Go for a short walk or stretch for five minutes, at a pace that feels comfortable."),
    (("friend", "support", "talk to someone", "someone you trust", "family"),
     "Tell {support} how the exercise went."),
    (("gratitude", "grateful", "thankful"),
     "Write down one thing that went okay today, however small."),
    (("self-compassion", "self compassion", "kindness", "kind to"),
     "Say something kind to yourself, the way you would to a good friend."),
    (("grounding", "mindful", "present moment", "senses"),
     "Name five things you can see and three things you can hear around you."),
    (("music", "song"), "Play a calm song you like and notice how your body responds."),
    (("routine", "schedule", "planner", "habit"),
     "Put a regular time for this exercise in your calendar or planner."),
    (("reward", "treat", "celebrate"),
     "Give yourself a small reward when you finish, such as a favourite drink."),
)
"""Steps a person can ask for by topic ("add a step about journaling")."""
