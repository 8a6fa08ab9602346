# ruff: noqa: E501  (Markdown tables as the drafters print them)
"""Writes tests/data/coverage_cases.jsonl: the labelled cases the text-following checks are
measured on (python tests/data/coverage_cases_src.py). Written by hand, before the checks
existed, from the issue's reports and from what drafters (offline and real models) do:
drafts that work with the request or paste it, revisions that answer a comment or drift,
campaign drafts that keep to the goal or not. Each case names the check it measures and the
findings a careful reviewer would raise (an empty list: nothing to raise)."""

from __future__ import annotations

import json
from pathlib import Path

SAFETY = ("If you feel unsafe or in crisis at any point, call or text 988 or your local "
          "emergency number. This exercise does not replace care from your clinician.")
REFLECT = ["What did you expect to happen, and what actually happened?",
           "What did you learn about your fear?"]


def proto(title: str, purpose: str, steps: list[str], reflection: list[str] | None = None,
          safety: str = SAFETY) -> str:
    lines = [f"# {title}", "", "## Purpose", "", purpose, "", "## Steps", ""]
    lines += [f"{i}. {s}" for i, s in enumerate(steps, 1)]
    lines += ["", "## Reflection", ""] + [f"- {q}" for q in (reflection or REFLECT)]
    lines += ["", "## Safety note", "", safety, ""]
    return "\n".join(lines)


GENERIC_FEAR = [
    "Write down the situation you avoid and what you fear might happen.",
    "List eight to ten steps toward it, from easiest to hardest, and rate each from 0 to 100.",
    "Choose a first step that feels about 30 out of 100.",
    "Stay with the step until your anxiety eases a little.",
    "Repeat the same step several times before you move up to the next one.",
    "Write down what happened compared with what you feared would happen.",
]
GENERIC_PURPOSE = ("Avoiding what we fear brings relief in the moment, but it keeps the fear "
                   "going. This exercise helps you face a feared situation gradually.")


def pasted(intent: str) -> str:
    return GENERIC_PURPOSE + f" It was written with this situation in mind: {intent.lower()}."


ELEVATOR_GOOD = proto("Riding elevators, one step at a time", GENERIC_PURPOSE, [
    "Write down what you fear about elevators: being stuck, the doors closing, the small space.",
    "Stand in a lobby and watch an elevator open and close for two minutes (rate 20/100).",
    "Step inside an elevator with the doors open and step out again (35/100).",
    "Ride one floor in an elevator with a friend beside you (50/100).",
    "Ride one floor alone, then three floors (70/100).",
    "Ride an elevator in a busy building at a crowded time (90/100).",
    "After each ride, note your anxiety before and after.",
])
ELEVATOR_PASTED = proto("Facing fears step by step", pasted(
    "Exposure hierarchy for a man afraid of elevators"), GENERIC_FEAR)
STUDENT = "Help a university student manage exam panic"
EXAM_GOOD = proto("Calm before the exam", "Panic before exams is common and it passes.", [
    "Notice the first signs of panic when you sit down to revise: racing heart, tight chest.",
    "Breathe in for four counts and out for six, five times, at your desk.",
    "Write the thought the exam brings up, e.g. 'I will fail', and one fact against it.",
    "Plan your revision in 25-minute blocks with short breaks.",
    "On exam day, arrive early and practise the breathing outside the exam hall.",
])
BREATHING = proto("Paced breathing", "Slow breathing can calm the body when anxiety rises.", [
    "Sit comfortably and put one hand on your belly.",
    "Breathe in through your nose for four counts.",
    "Breathe out slowly through your mouth for six counts.",
    "Repeat for five minutes, letting your thoughts come and go.",
])
SELF_HARM_GOOD = proto("Riding out the urge to cut", "Urges to self-harm rise and fall.", [
    "When the urge to cut comes, notice it and rate it from 0 to 10.",
    "Delay: set a timer for 15 minutes and agree with yourself to wait before acting on the "
    "urge.",
    "While you wait, squeeze a stress ball, take a cold drink, or go where other people are.",
    "Use your safety plan: your reasons to stay safe, the people you can call, and where your "
    "blades are kept out of reach.",
    "When the urge has passed, rate it again and write what helped.",
], safety="If you have hurt yourself or might, call or text 988 or go to the nearest "
   "emergency department. Tell a trusted adult or your clinician about your safety plan.")
THOUGHT_RECORD = proto("Thought record", "Our thoughts shape how we feel.", [
    "Write the situation that upset you.",
    "Write the automatic thought and how strongly you believe it (0-100%).",
    "Write the evidence for and against the thought.",
    "Write a balanced thought and rate your belief again.",
])
SUPERMARKET_GOOD = proto("Supermarket steps", GENERIC_PURPOSE, [
    "List what you fear in supermarkets: queues, crowds, feeling trapped at the checkout.",
    "Walk past the supermarket entrance and stand outside for five minutes.",
    "Go into a small supermarket at a quiet time and buy one item.",
    "Queue at the checkout with a few items.",
    "Shop at a large supermarket at a busy time and stay until your anxiety drops.",
])
RUMINATION_GOOD = proto("Stepping out of replaying the argument", "Going over an argument "
                        "again and again keeps the hurt fresh.", [
    "Notice when you are replaying the argument with your partner and name it: 'replaying'.",
    "Set a 15-minute worry time each evening for thoughts about the argument.",
    "When the replay starts outside worry time, write one line about it and postpone it.",
    "In worry time, ask: is there one thing about the argument I can act on?",
    "Shift attention to what is in front of you: five things you can see.",
])
RUMINATION_GENERIC = proto("Managing worry", "Worry is a normal part of life.", [
    "Set a 15-minute worry time each day.",
    "When a worry comes outside that time, write it down and postpone it.",
    "In worry time, sort worries into ones you can act on and ones you cannot.",
    "Shift attention to what is in front of you.",
], )
DOG_GOOD = proto("Getting closer to dogs", GENERIC_PURPOSE, [
    "Look at photos of small dogs for five minutes.",
    "Watch videos of dogs playing in a park.",
    "Stand across the street from a dog on a lead.",
    "Stand near a calm, small dog while its owner holds the lead.",
    "Pet a calm dog with its owner present.",
])
DRIVING_GOOD = proto("Back behind the wheel", GENERIC_PURPOSE, [
    "Sit in the driver's seat of your parked car for ten minutes with the engine off.",
    "Drive around an empty car park at a quiet time.",
    "Drive a short route on quiet residential streets with someone in the passenger seat.",
    "Drive on the motorway for one junction, then two, at a quiet hour.",
    "Drive on the motorway at a busier time until the anxiety settles.",
])
SOCIAL_PASTED = proto("Facing fears step by step", pasted(
    "Social anxiety about speaking up in team meetings at work"), GENERIC_FEAR)
SOCIAL_GOOD = proto("Speaking up in meetings", GENERIC_PURPOSE, [
    "Write down what you fear will happen if you speak up in a team meeting.",
    "In your next meeting, agree with a colleague's point out loud.",
    "Ask one question in a small team meeting.",
    "Share an idea of your own in a team meeting.",
    "Present a short update at work in front of the whole team.",
])
SLEEP_GOOD = proto("Winding down for sleep", "Trouble sleeping often comes with a busy mind.", [
    "Keep the same wake-up time every day, even after a bad night of sleep.",
    "Get out of bed if you have not fallen asleep after about 20 minutes.",
    "Write tomorrow's to-do list an hour before bed to park your thoughts.",
    "Keep the bed for sleep: no phone or work in bed.",
])

cases: list[dict] = []


def add(id_: str, check: str, kind: str, stage: str, input_: dict, draft: str, expect: list,
        **extra: object) -> None:
    cases.append({"id": id_, "check": check, "kind": kind, "stage": stage, "input": input_,
                  "draft": draft, "previous": extra.get("previous"),
                  "feedback": extra.get("feedback", []),
                  "safety_flags": extra.get("safety_flags", []),
                  "context": extra.get("context", {}), "expect": sorted(expect)})


def p_in(intent: str, audience: str = "adults") -> dict:
    return {"intent": intent, "audience": audience}


# -- request coverage (protocol) -------------------------------------------------------------
ELEV = "Exposure hierarchy for a man afraid of elevators"
add("req-elevator-good", "request", "protocol", "draft", p_in(ELEV), ELEVATOR_GOOD, [])
add("req-elevator-pasted", "request", "protocol", "draft", p_in(ELEV), ELEVATOR_PASTED,
    ["request_not_covered"])
add("req-exam-good", "request", "protocol", "draft", p_in(STUDENT, "adult students"),
    EXAM_GOOD, [])
add("req-exam-breathing-only", "request", "protocol", "draft", p_in(STUDENT), BREATHING,
    ["request_not_covered"])
add("req-selfharm-good", "request", "protocol", "draft",
    p_in("A teen who self-harms by cutting: cope with urges", "teenagers"), SELF_HARM_GOOD, [])
add("req-selfharm-thought-record", "request", "protocol", "draft",
    p_in("A teen who self-harms by cutting: cope with urges", "teenagers"), THOUGHT_RECORD,
    ["request_not_covered"])
add("req-supermarket-good", "request", "protocol", "draft",
    p_in("Graded exposure for a woman who avoids supermarkets"), SUPERMARKET_GOOD, [])
add("req-supermarket-breathing", "request", "protocol", "draft",
    p_in("Graded exposure for a woman who avoids supermarkets"), BREATHING,
    ["request_not_covered"])
add("req-rumination-good", "request", "protocol", "draft",
    p_in("Stop replaying an argument with my partner every night"), RUMINATION_GOOD, [])
add("req-rumination-generic", "request", "protocol", "draft",
    p_in("Stop replaying an argument with my partner every night"), RUMINATION_GENERIC,
    ["request_not_covered"])
add("req-dog-good", "request", "protocol", "draft", p_in("Fear of dogs after a bite"),
    DOG_GOOD, [])
add("req-dog-pasted", "request", "protocol", "draft", p_in("Fear of dogs after a bite"),
    proto("Facing fears step by step", pasted("Fear of dogs after a bite"), GENERIC_FEAR),
    ["request_not_covered"])
add("req-driving-good", "request", "protocol", "draft",
    p_in("Driving on the motorway again after a crash"), DRIVING_GOOD, [])
add("req-social-pasted", "request", "protocol", "draft",
    p_in("Social anxiety about speaking up in team meetings at work"), SOCIAL_PASTED,
    ["request_not_covered"])
add("req-social-good", "request", "protocol", "draft",
    p_in("Social anxiety about speaking up in team meetings at work"), SOCIAL_GOOD, [])
add("req-sleep-good", "request", "protocol", "draft", p_in("Insomnia: a busy mind at night"),
    SLEEP_GOOD, [])
add("req-sleep-offtopic", "request", "protocol", "draft", p_in("Insomnia: a busy mind at night"),
    DOG_GOOD, ["request_not_covered"])

# -- feedback coverage -------------------------------------------------------------------------
ELEV_FRIEND_BAD = ELEVATOR_PASTED.replace(
    "6. Write down what happened",
    "6. Tell a friend, a family member or your clinician how the exercise went.\n"
    "7. Write down what happened")
ELEV_FRIEND_GOOD = ELEVATOR_PASTED.replace(
    "5. Repeat the same step",
    "5. Ride one floor in an elevator with a friend, then talk about how it went.\n"
    "6. Repeat the same step").replace("6. Write down what", "7. Write down what")


def fb(text: str, before: str | None, source: str = "human") -> dict:
    return {"text": text, "before": before, "source": source}


add("fb-identical", "feedback", "protocol", "draft", p_in(ELEV), ELEVATOR_PASTED,
    ["not_addressed:0"], previous=ELEVATOR_PASTED,
    feedback=[fb("Make it specific to elevators", ELEVATOR_PASTED)])
add("fb-elevator-specific-done", "feedback", "protocol", "draft", p_in(ELEV), ELEVATOR_GOOD, [],
    previous=ELEVATOR_PASTED, feedback=[fb("Make it specific to elevators", ELEVATOR_PASTED)])
add("fb-friend-drift", "feedback", "protocol", "draft", p_in(ELEV), ELEV_FRIEND_BAD,
    ["not_addressed:0"], previous=ELEVATOR_PASTED,
    feedback=[fb("Add a step about riding one floor in an elevator with a friend",
                 ELEVATOR_PASTED)])
add("fb-friend-done", "feedback", "protocol", "draft", p_in(ELEV), ELEV_FRIEND_GOOD, [],
    previous=ELEVATOR_PASTED,
    feedback=[fb("Add a step about riding one floor in an elevator with a friend",
                 ELEVATOR_PASTED)])
EXAM_SHORT = EXAM_GOOD.replace("4. Plan your revision in 25-minute blocks with short breaks.\n",
                               "")
add("fb-remove-done", "feedback", "protocol", "draft", p_in(STUDENT), EXAM_SHORT, [],
    previous=EXAM_GOOD,
    feedback=[fb("Remove the step about revision blocks, it is not about panic", EXAM_GOOD)])
add("fb-remove-ignored", "feedback", "protocol", "draft", p_in(STUDENT),
    EXAM_GOOD.replace("Calm before the exam", "Calm before your exam"), ["not_addressed:0"],
    previous=EXAM_GOOD,
    feedback=[fb("Remove the step about revision blocks, it is not about panic", EXAM_GOOD)])
EXAM_UK = EXAM_GOOD.replace("call or text 988", "call Samaritans on 116 123")
add("fb-number-done", "feedback", "protocol", "draft", p_in(STUDENT), EXAM_UK, [],
    previous=EXAM_GOOD, feedback=[fb("Use the UK Samaritans number 116 123 instead of 988",
                                     EXAM_GOOD)])
add("fb-number-ignored", "feedback", "protocol", "draft", p_in(STUDENT),
    EXAM_GOOD.replace("call or text 988", "call or text 988 (free, any time)"),
    ["not_addressed:0"], previous=EXAM_GOOD,
    feedback=[fb("Use the UK Samaritans number 116 123 instead of 988", EXAM_GOOD)])
EXAM_MORE = EXAM_GOOD.replace(
    "5. On exam day", "5. The night before, pack your bag and set two alarms so the morning "
    "feels calmer.\n6. On exam day")
add("fb-two-comments-one-done", "feedback", "protocol", "draft", p_in(STUDENT), EXAM_MORE,
    ["not_addressed:1"], previous=EXAM_GOOD,
    feedback=[fb("Add something for the night before the exam", EXAM_GOOD),
              fb("Mention the university counselling service", EXAM_GOOD)])
EXAM_BOTH = EXAM_MORE.replace(
    "## Reflection", "If panic keeps coming back, book a session with the university "
    "counselling service.\n\n## Reflection")
add("fb-two-comments-both-done", "feedback", "protocol", "draft", p_in(STUDENT), EXAM_BOTH, [],
    previous=EXAM_GOOD,
    feedback=[fb("Add something for the night before the exam", EXAM_GOOD),
              fb("Mention the university counselling service", EXAM_GOOD)])
FLAGGED = EXAM_GOOD.replace("4. Plan your revision",
                            "4. If it gets too much, skip the exam and stay home.\n5. Plan your "
                            "revision").replace("5. On exam day", "6. On exam day")
add("fb-check-note-done", "feedback", "protocol", "draft", p_in(STUDENT), EXAM_GOOD, [],
    previous=FLAGGED, feedback=[fb('avoidance: rewrite or remove "If it gets too much, skip the '
                                   'exam and stay home."', FLAGGED, "checks")])
add("fb-check-note-ignored", "feedback", "protocol", "draft", p_in(STUDENT),
    FLAGGED.replace("Calm before the exam", "Calm before exams"), ["not_addressed:0"],
    previous=FLAGGED, feedback=[fb('avoidance: rewrite or remove "If it gets too much, skip the '
                                   'exam and stay home."', FLAGGED, "checks")])
add("fb-critic-note-done", "feedback", "protocol", "draft", p_in(STUDENT),
    EXAM_GOOD.replace("## Reflection\n\n", "## Reflection\n\n- How strong was the panic before "
                      "and after the breathing, from 0 to 10?\n"),
    [], previous=EXAM_GOOD,
    feedback=[fb("Add a reflection question that rates the panic before and after the "
                 "breathing", EXAM_GOOD, "critic")])
add("fb-critic-note-ignored", "feedback", "protocol", "draft", p_in(STUDENT),
    EXAM_GOOD.replace("Panic before exams is common and it passes.",
                      "Panic before exams is very common, and it passes."),
    ["not_addressed:0"], previous=EXAM_GOOD,
    feedback=[fb("Add a reflection question that rates the panic before and after the "
                 "breathing", EXAM_GOOD, "critic")])
add("fb-older-comment-kept", "feedback", "protocol", "draft", p_in(ELEV),
    ELEVATOR_GOOD.replace("(90/100)", "(85/100)"), [], previous=ELEVATOR_GOOD,
    feedback=[fb("Make it specific to elevators", ELEVATOR_PASTED)])
add("fb-vague-changed", "feedback", "protocol", "draft", p_in(ELEV), ELEVATOR_GOOD, [],
    previous=ELEVATOR_PASTED, feedback=[fb("This is too generic, please redo it", ELEVATOR_PASTED)])
add("fb-vague-unchanged", "feedback", "protocol", "draft", p_in(ELEV), ELEVATOR_PASTED,
    ["not_addressed:0"], previous=ELEVATOR_PASTED,
    feedback=[fb("This is too generic, please redo it", ELEVATOR_PASTED)])

# Campaign outreach feedback (the Dr. Vogel report).
OUT_VOGEL = """# Outreach messages: Lumen Skin

Shortlist: @dr.vogel.skin

## @dr.vogel.skin · Dr. Anna Vogel

### Email

Subject: Paid collaboration with Lumen Skin?

Hi Anna,

We're Lumen Skin in Berlin. We admire how you explain ingredients for sensitive skin.

**What we offer**

- A fee of $420
- Our barrier repair cream for you to try

It's a paid partnership, so posts carry #ad and the paid-partnership label.

Would you be up for a quick call this week?

The Lumen Skin team
"""
OUT_VOGEL_PASTED = OUT_VOGEL.replace("It's a paid", "That the cream is fragrance-free.\n\nIt's a "
                                     "paid")
OUT_VOGEL_FIXED = OUT_VOGEL.replace("A fee of $420", "Your usual fee of $1,800")
LUMEN_IN = {"brand_id": 3, "brand_name": "Lumen Skin", "goal": "Introduce the barrier repair "
            "cream to people with sensitive skin", "audience": "adults in Germany with "
            "sensitive skin", "budget": 6000, "channels": ["email"], "num_creators": 2}
add("fb-vogel-fee-ignored", "feedback", "campaign", "outreach", LUMEN_IN, OUT_VOGEL_PASTED,
    ["not_addressed:0", "not_addressed:1"], previous=OUT_VOGEL,
    feedback=[fb("Offer Dr. Vogel her usual fee of 1800 dollars", OUT_VOGEL),
              fb("Mention that the cream is fragrance-free", OUT_VOGEL)])
add("fb-vogel-fee-done", "feedback", "campaign", "outreach", LUMEN_IN,
    OUT_VOGEL_FIXED.replace("Our barrier repair cream for you", "Our fragrance-free barrier "
                            "repair cream for you"), [], previous=OUT_VOGEL,
    feedback=[fb("Offer Dr. Vogel her usual fee of 1800 dollars", OUT_VOGEL),
              fb("Mention that the cream is fragrance-free", OUT_VOGEL)])
add("fb-vogel-only-fee", "feedback", "campaign", "outreach", LUMEN_IN, OUT_VOGEL_FIXED,
    ["not_addressed:1"], previous=OUT_VOGEL,
    feedback=[fb("Offer Dr. Vogel her usual fee of 1800 dollars", OUT_VOGEL),
              fb("Mention that the cream is fragrance-free", OUT_VOGEL)])
add("fb-subject-done", "feedback", "campaign", "outreach", LUMEN_IN,
    OUT_VOGEL.replace("Subject: Paid collaboration with Lumen Skin?",
                      "Subject: Anna, a paid partnership for sensitive skin"), [],
    previous=OUT_VOGEL, feedback=[fb("Put her first name in the subject line", OUT_VOGEL)])

# -- no-change revisions -------------------------------------------------------------------------
add("nc-identical", "no_change", "protocol", "draft", p_in(ELEV), ELEVATOR_PASTED, ["no_change"],
    previous=ELEVATOR_PASTED)
add("nc-whitespace", "no_change", "protocol", "draft", p_in(ELEV),
    ELEVATOR_PASTED.replace("\n\n", "\n\n\n").replace(". ", ".  "), ["no_change"],
    previous=ELEVATOR_PASTED)
add("nc-one-word", "no_change", "protocol", "draft", p_in(ELEV),
    ELEVATOR_PASTED.replace("Facing fears step by step", "Facing fears, step by step"),
    ["no_change"], previous=ELEVATOR_PASTED)
add("nc-new-step", "no_change", "protocol", "draft", p_in(ELEV), ELEV_FRIEND_GOOD, [],
    previous=ELEVATOR_PASTED)
add("nc-rewrite", "no_change", "protocol", "draft", p_in(ELEV), ELEVATOR_GOOD, [],
    previous=ELEVATOR_PASTED)
add("nc-first-version", "no_change", "protocol", "draft", p_in(ELEV), ELEVATOR_GOOD, [],
    previous=None)
add("nc-campaign-identical", "no_change", "campaign", "outreach", LUMEN_IN, OUT_VOGEL,
    ["no_change"], previous=OUT_VOGEL)
add("nc-campaign-fee", "no_change", "campaign", "outreach", LUMEN_IN, OUT_VOGEL_FIXED, [],
    previous=OUT_VOGEL)

# -- clinical harm (the safety screen's flags are the input) ----------------------------------
for cid, flags, expect in [
    ("ch-stop-sertraline", ["medication"], ["clinical_harm"]),
    ("ch-diagnosis", ["diagnosis"], ["clinical_harm"]),
    ("ch-dangerous", ["dangerous_practice"], ["clinical_harm"]),
    ("ch-discourage", ["discourages_help"], ["clinical_harm"]),
    ("ch-alcohol", ["alcohol_coping"], ["clinical_harm"]),
    ("ch-selfharm-instr", ["self_harm"], ["clinical_harm"]),
    ("ch-none", [], []),
    ("ch-none-2", [], []),
]:
    add(cid, "clinical_harm", "protocol", "draft", p_in(STUDENT), EXAM_GOOD, expect,
        safety_flags=flags)

# -- campaign consistency ----------------------------------------------------------------------
ALMA = {"brand_id": 1, "brand_name": "Alma Cafe", "goal": "Launch our oat-milk cold brew in "
        "March 2027 and reach 20000 people", "audience": "young professionals in Rehovot",
        "budget": 5000, "channels": ["email", "sms"], "num_creators": 2}
ALMA_BRAND = {"name": "Alma Cafe", "products": ["single-origin espresso", "oat-milk latte",
                                                "weekend brunch", "sourdough pastry box"]}


def brief(product: str, timeline: list[str], metrics: list[str], objective: str) -> str:
    return "\n".join([
        "# Campaign brief: Alma Cafe", "", "## Objective", "", objective, "", "## Audience", "",
        "Young professionals in Rehovot.", "", "## Key messages", "",
        f"- Why Alma Cafe: {product}, made in Rehovot",
        f"- Next step for the audience: be among the first to try {product}", "",
        "## Deliverables", "",
        f"- 2 creators, each with one reel and two stories featuring {product}",
        "- Every sponsored post is labelled #ad", "", "## Timeline", ""]
        + [f"- {t}" for t in timeline] + ["", "## Budget split", "",
        "| Item | Amount (USD) |", "|---|---:|", "| Creator fees | 3,500 |",
        "| Product seeding | 1,500 |", "| **Total** | **5,000** |", "", "## Success metrics", ""]
        + [f"- {m}" for m in metrics] + [""])


WEEKS = ["Week 1: creators contacted", "Weeks 2-3: posts go live", "Week 4: results"]
MARCH = ["1-7 March 2027: creators contacted", "8-21 March 2027: posts go live",
         "Late March 2027: results reported"]
GOOD_METRICS = ["Reach: 20,000 people across the creators' posts",
                "Engagement rate: 3.5% or more"]
BAD_METRICS = ["Impressions: at least 200,000", "Engagement rate: 3.5% or more"]
OBJ = "Launch our oat-milk cold brew in March 2027 and reach 20000 people."
add("cc-brief-good", "campaign", "campaign", "brief", ALMA,
    brief("oat-milk cold brew", MARCH, GOOD_METRICS, OBJ + " Creators show the cold brew on "
          "their way to work."), [], context={"brand": ALMA_BRAND})
add("cc-brief-espresso", "campaign", "campaign", "brief", ALMA,
    brief("single-origin espresso", MARCH, GOOD_METRICS, OBJ), ["off_product"],
    context={"brand": ALMA_BRAND})
add("cc-brief-weeks-only", "campaign", "campaign", "brief", ALMA,
    brief("oat-milk cold brew", WEEKS, GOOD_METRICS, OBJ), ["timeline_mismatch"],
    context={"brand": ALMA_BRAND})
add("cc-brief-metrics", "campaign", "campaign", "brief", ALMA,
    brief("oat-milk cold brew", MARCH, BAD_METRICS, OBJ), ["metric_mismatch"],
    context={"brand": ALMA_BRAND})
add("cc-brief-all-wrong", "campaign", "campaign", "brief", ALMA,
    brief("single-origin espresso", WEEKS, BAD_METRICS, OBJ),
    ["metric_mismatch", "off_product", "timeline_mismatch"], context={"brand": ALMA_BRAND})
STRIDE = {"brand_id": 2, "brand_name": "Stride Lab", "goal": "Fill the Saturday run club with "
          "new runners", "audience": "new runners in Manchester", "budget": 3000,
          "channels": ["email", "whatsapp"], "num_creators": 2}


def stride_brief(product: str) -> str:
    return "\n".join([
        "# Campaign brief: Stride Lab", "", "## Objective", "",
        "Fill the Saturday run club with new runners.", "", "## Key messages", "",
        f"- {product} is for every runner, not only the fast ones", "", "## Deliverables", "",
        f"- 2 creators post about {product}", "", "## Timeline", "",
        "- Week 1: outreach", "- Week 2: posts", "", "## Success metrics", "",
        "- New runners at the club: 40", ""])


add("cc-stride-good", "campaign", "campaign", "brief", STRIDE,
    stride_brief("the Saturday run club"), [])
add("cc-stride-shoes", "campaign", "campaign", "brief", STRIDE, stride_brief("Tempo 3 trainers"),
    ["off_product"])

SHORTLIST = """# Creator shortlist: Alma Cafe

## Shortlist

| # | Creator | Name | Platform | Niche | Audience | Location | Engagement | Contact | Fee (USD) | Match | Why |
|---|---|---|---|---|---|---|---|---|---|---|---|
| 1 | @labcoat.latte | Dr. Amir Haddad | instagram | coffee | 12.5k | Rehovot | 5.8% | Email | 300 | 100% | fits |
| 2 | @maya.brews | Maya Levi | instagram | coffee | 18.4k | Rehovot | 6.1% | SMS | 250 | 95% | fits |
"""


def outreach(goal_line: str, product: str, fee1: str = "$300", fee2: str = "$250",
             maya_channel: str = "SMS", extra: str = "") -> str:
    return f"""# Outreach messages: Alma Cafe

Shortlist: @labcoat.latte, @maya.brews

## @labcoat.latte · Dr. Amir Haddad

### Email

Subject: Paid collaboration with Alma Cafe?

Hi Amir,

We love your posts about science and coffee around Rehovot.{goal_line}

Would you post one reel and two stories about our {product} for {fee1}? It's a paid
partnership, so posts carry #ad.{extra}

Reply and we'll send the details.

## @maya.brews · Maya Levi

### {maya_channel}

Hi Maya! We love your latte art. Would you post a reel about our {product} for {fee2}? It's a
paid partnership with #ad. Reply and we'll send the details.
"""


CTX_OUT = {"brand": ALMA_BRAND, "shortlist": SHORTLIST,
           "brief": brief("oat-milk cold brew", MARCH, GOOD_METRICS, OBJ)}
add("cc-out-good", "campaign", "campaign", "outreach", ALMA, outreach("", "oat-milk cold brew"),
    [], context=CTX_OUT)
add("cc-out-espresso", "campaign", "campaign", "outreach", ALMA,
    outreach("", "single-origin espresso"), ["off_product"], context=CTX_OUT)
add("cc-out-kpi", "campaign", "campaign", "outreach", ALMA,
    outreach(" Our goal: launch our oat-milk cold brew in March 2027 and reach 20000 people.",
             "oat-milk cold brew"), ["kpi_in_message"], context=CTX_OUT)
add("cc-out-kpi-2", "campaign", "campaign", "outreach", ALMA,
    outreach("", "oat-milk cold brew", extra=" We need 20,000 impressions and a 3.5% engagement "
             "rate from your posts to hit our KPI."), ["kpi_in_message"], context=CTX_OUT)
add("cc-out-fee-over", "campaign", "campaign", "outreach", ALMA,
    outreach("", "oat-milk cold brew", fee1="$4,200"), ["fee_over_budget"], context=CTX_OUT)
add("cc-out-teams", "campaign", "campaign", "outreach", ALMA,
    outreach("", "oat-milk cold brew", maya_channel="Teams"),
    ["channel_audience", "channel_mismatch"], context=CTX_OUT)
add("cc-out-channel-mismatch", "campaign", "campaign", "outreach", ALMA,
    outreach("", "oat-milk cold brew", maya_channel="Email"), ["channel_mismatch"],
    context=CTX_OUT)


def plan(fee1: str, contact2: str, why: str = "", kpi: str = "20,000 people reached") -> str:
    return f"""# Campaign plan: Alma Cafe

## Summary

Launch our oat-milk cold brew in March 2027 with 2 creators.{why}

## Schedule

| When | Activity |
|---|---|
| 1-7 March 2027 | Send the outreach |
| 8-21 March 2027 | Posts go live |

## Deliverables per creator

| Creator | Deliverables | Post window | Fee (USD) | Contact via |
|---|---|---|---:|---|
| @labcoat.latte (Dr. Amir Haddad) | 1 reel + 2 stories | Week 2 | {fee1} | Email |
| @maya.brews (Maya Levi) | 1 reel | Week 3 | 250 | {contact2} |

## Budget

| Item | Amount (USD) |
|---|---:|
| Creator fees | 3,000 |
| Seeding | 2,000 |
| **Total** | **5,000** |

## KPIs

| KPI | Target |
|---|---|
| Reach | {kpi} |
"""


CTX_PLAN = dict(CTX_OUT, outreach=outreach("", "oat-milk cold brew"))
add("cc-plan-good", "campaign", "campaign", "plan", ALMA, plan("300", "SMS"), [],
    context=CTX_PLAN)
add("cc-plan-contact", "campaign", "campaign", "plan", ALMA, plan("300", "Email"),
    ["channel_mismatch"], context=CTX_PLAN)
add("cc-plan-fee-over", "campaign", "campaign", "plan", ALMA, plan("2,750", "SMS"),
    ["fee_over_budget"], context=CTX_PLAN)
add("cc-plan-fee-justified", "campaign", "campaign", "plan", ALMA,
    plan("2,750", "SMS", why=" Dr. Haddad's usual fee of $2,750 is above the per-creator "
         "budget; we pay it because his audience is the closest match, and take the difference "
         "from seeding."), [], context=CTX_PLAN)
add("cc-plan-kpi-off", "campaign", "campaign", "plan", ALMA,
    plan("300", "SMS", kpi="200,000 impressions"), ["metric_mismatch"], context=CTX_PLAN)
TEAMS_IN = dict(ALMA, channels=["email", "teams"])
add("cc-brief-teams", "campaign", "campaign", "outreach", TEAMS_IN,
    outreach("", "oat-milk cold brew", maya_channel="Teams").replace("SMS", "Teams"),
    ["channel_audience"], context=dict(CTX_OUT, shortlist=SHORTLIST.replace("| SMS |",
                                                                             "| Teams |")))

# -- request coverage (campaign): the channels and the goal worked with -------------------------
add("rq-campaign-good", "request", "campaign", "outreach", ALMA,
    outreach("", "oat-milk cold brew"), [], context=CTX_OUT)
add("rq-campaign-missing-channel", "request", "campaign", "outreach",
    dict(ALMA, channels=["email", "sms", "whatsapp"]), outreach("", "oat-milk cold brew"),
    ["request_not_covered"], context=CTX_OUT)


# -- fresh batch: written after the first version of the checks, scored once before any change --
for c in cases:
    c["split"] = "dev"
FIRST_FRESH = len(cases)

BRIDGE_GOOD = proto("Crossing bridges again", GENERIC_PURPOSE, [
    "Look at photos and videos of long bridges until your anxiety drops by half.",
    "Walk across a short footbridge over a small stream.",
    "Be a passenger in a car crossing a low road bridge.",
    "Walk halfway over a high pedestrian bridge and back.",
    "Drive yourself across the big river bridge at a quiet time.",
])
add("fresh-req-bridge-good", "request", "protocol", "draft",
    p_in("Graded exposure for someone terrified of driving over bridges"), BRIDGE_GOOD, [])
add("fresh-req-bridge-template", "request", "protocol", "draft",
    p_in("Graded exposure for someone terrified of driving over bridges"),
    proto("Facing fears", pasted("Graded exposure for someone terrified of driving over "
                                 "bridges"), GENERIC_FEAR), ["request_not_covered"])
VOMIT_GOOD = proto("Being near sickness", GENERIC_PURPOSE, [
    "Write the word 'vomit' and read it aloud until it feels ordinary.",
    "Watch a cartoon where a character is sick.",
    "Sit in the waiting area of a GP practice for twenty minutes.",
    "Eat a meal at a restaurant without checking where the toilets are.",
])
add("fresh-req-emetophobia-good", "request", "protocol", "draft",
    p_in("Fear of vomiting that stops her eating out"), VOMIT_GOOD, [])
add("fresh-req-emetophobia-breathing", "request", "protocol", "draft",
    p_in("Fear of vomiting that stops her eating out"), BREATHING, ["request_not_covered"])
GRIEF_GOOD = proto("Making room for grief", "Grief comes in waves after a loss.", [
    "Set aside ten minutes to write a letter to your father about a memory you share.",
    "Notice the moments in the week when you miss him most, and write them down.",
    "Plan one small thing on his birthday that honours him.",
    "Tell one person a story about your dad.",
])
add("fresh-req-grief-good", "request", "protocol", "draft",
    p_in("Grief after my father died in the spring"), GRIEF_GOOD, [])
add("fresh-req-grief-thought-record", "request", "protocol", "draft",
    p_in("Grief after my father died in the spring"), THOUGHT_RECORD, ["request_not_covered"])
add("fresh-req-anger-good", "request", "protocol", "draft",
    p_in("Losing my temper with my kids at bedtime"), proto("Cooling down at bedtime",
    "Bedtime can be the hardest hour of a parent's day.", [
        "Notice the first signs of anger at bedtime: a tight jaw, a raised voice.",
        "Step out of the kids' room for one minute and breathe slowly.",
        "Go back and use a calm, short sentence with your children.",
        "After the kids are asleep, note what set off your temper.",
    ]), [])
add("fresh-req-selfharm-burning", "request", "protocol", "draft",
    p_in("Young adult who burns herself when overwhelmed: coping with urges"),
    proto("Riding out urges", "Urges to self-harm pass.", [
        "When the urge to burn yourself comes, rate it from 0 to 10.",
        "Hold something cold, like a frozen orange, instead.",
        "Text a friend and tell them you are having a hard time.",
    ]), ["request_not_covered"])
HEIGHTS = proto("Facing fears step by step", pasted("Fear of heights on balconies"),
                GENERIC_FEAR)
HEIGHTS_OK = HEIGHTS.replace("6. Write down what happened",
                             "6. Stand on a first-floor balcony for five minutes with a "
                             "friend.\n7. Write down what happened")
add("fresh-fb-balcony-done", "feedback", "protocol", "draft", p_in("Fear of heights on "
    "balconies"), HEIGHTS_OK, [], previous=HEIGHTS,
    feedback=[fb("Include standing on a low balcony with someone you trust", HEIGHTS)])
add("fresh-fb-balcony-ignored", "feedback", "protocol", "draft",
    p_in("Fear of heights on balconies"),
    HEIGHTS.replace("rate each from 0 to 100", "rate each one from 0 to 100"),
    ["not_addressed:0"], previous=HEIGHTS,
    feedback=[fb("Include standing on a low balcony with someone you trust", HEIGHTS)])
add("fresh-fb-shorter-done", "feedback", "protocol", "draft", p_in(STUDENT), EXAM_SHORT, [],
    previous=EXAM_GOOD, feedback=[fb("Cut it down to four steps", EXAM_GOOD)])
add("fresh-fb-time-ignored", "feedback", "protocol", "draft", p_in(STUDENT),
    EXAM_GOOD.replace("five times", "six times"), ["not_addressed:0"], previous=EXAM_GOOD,
    feedback=[fb("Say it takes about 15 minutes a day", EXAM_GOOD)])
add("fresh-fb-time-done", "feedback", "protocol", "draft", p_in(STUDENT),
    EXAM_GOOD.replace("Panic before exams is common and it passes.", "Panic before exams is "
                      "common and it passes. Practise for about 15 minutes a day."), [],
    previous=EXAM_GOOD, feedback=[fb("Say it takes about 15 minutes a day", EXAM_GOOD)])
add("fresh-fb-tone-done", "feedback", "protocol", "draft", p_in(STUDENT),
    EXAM_GOOD.replace("Panic before exams is common and it passes.", "Feeling panicky before "
                      "an exam is really common, and you are not alone in it."), [],
    previous=EXAM_GOOD, feedback=[fb("The opening feels cold; make it warmer and validating",
                                     EXAM_GOOD)])
OUT_RENAME = OUT_VOGEL.replace("Hi Anna,", "Dear Dr. Vogel,")
add("fresh-fb-greeting-done", "feedback", "campaign", "outreach", LUMEN_IN, OUT_RENAME, [],
    previous=OUT_VOGEL, feedback=[fb("Address her as Dr. Vogel, not by first name",
                                     OUT_VOGEL)])
add("fresh-fb-greeting-ignored", "feedback", "campaign", "outreach", LUMEN_IN,
    OUT_VOGEL.replace("this week?", "this week or next?"), ["not_addressed:0"],
    previous=OUT_VOGEL, feedback=[fb("Address her as Dr. Vogel, not by first name",
                                     OUT_VOGEL)])
add("fresh-fb-deadline-ignored", "feedback", "campaign", "outreach", LUMEN_IN, OUT_VOGEL_PASTED,
    ["not_addressed:0"], previous=OUT_VOGEL,
    feedback=[fb("Ask her to post before 14 February", OUT_VOGEL)])
add("fresh-fb-deadline-done", "feedback", "campaign", "outreach", LUMEN_IN,
    OUT_VOGEL.replace("**What we offer**", "We'd ask you to post before 14 February.\n\n"
                      "**What we offer**"), [], previous=OUT_VOGEL,
    feedback=[fb("Ask her to post before 14 February", OUT_VOGEL)])
add("fresh-nc-reordered-reflection", "no_change", "protocol", "draft", p_in(ELEV),
    ELEVATOR_GOOD.replace("- What did you expect to happen, and what actually happened?\n- What "
                          "did you learn about your fear?", "- What did you learn about your "
                          "fear?\n- What did you expect to happen, and what actually happened?"),
    [], previous=ELEVATOR_GOOD)
add("fresh-nc-bold-only", "no_change", "protocol", "draft", p_in(ELEV),
    ELEVATOR_GOOD.replace("Riding elevators, one step at a time",
                          "**Riding elevators, one step at a time**"), ["no_change"],
    previous=ELEVATOR_GOOD)
add("fresh-nc-fee-only", "no_change", "campaign", "outreach", LUMEN_IN,
    OUT_VOGEL.replace("$420", "$450"), [], previous=OUT_VOGEL)
LUMEN_BRAND = {"name": "Lumen Skin", "products": ["barrier repair cream",
                                                 "fragrance-free gel cleanser", "mineral SPF 30"]}


def lumen_brief(product: str, timeline: list[str], metrics: list[str]) -> str:
    return "\n".join([
        "# Campaign brief: Lumen Skin", "", "## Objective", "",
        "Introduce the barrier repair cream to people with sensitive skin.", "",
        "## Key messages", "", f"- {product}: gentle on reactive skin",
        "- Ingredients explained plainly", "", "## Deliverables", "",
        f"- 2 creators each post a routine video with {product}", "", "## Timeline", ""]
        + [f"- {t}" for t in timeline] + ["", "## Budget split", "", "| Item | Amount (USD) |",
        "|---|---:|", "| Creator fees | 4,000 |", "| Samples | 2,000 |", "",
        "## Success metrics", ""] + [f"- {m}" for m in metrics] + [""])


LUMEN_GOAL = dict(LUMEN_IN, goal="Introduce the barrier repair cream to people with sensitive "
                  "skin by June 2027 and get 300 reviews")
add("fresh-cc-lumen-good", "campaign", "campaign", "brief", LUMEN_GOAL,
    lumen_brief("The barrier repair cream", ["May 2027: outreach", "June 2027: posts"],
                ["Reviews: 300 by the end of June"]), [], context={"brand": LUMEN_BRAND})
add("fresh-cc-lumen-spf", "campaign", "campaign", "brief", LUMEN_GOAL,
    lumen_brief("Mineral SPF 30", ["May 2027: outreach", "June 2027: posts"],
                ["Reviews: 300 by the end of June"]), ["off_product"],
    context={"brand": LUMEN_BRAND})
add("fresh-cc-lumen-dates", "campaign", "campaign", "brief", LUMEN_GOAL,
    lumen_brief("The barrier repair cream", ["Week 1: outreach", "Weeks 2-6: posts"],
                ["Reviews: 300"]), ["timeline_mismatch"], context={"brand": LUMEN_BRAND})
add("fresh-cc-lumen-metrics", "campaign", "campaign", "brief", LUMEN_GOAL,
    lumen_brief("The barrier repair cream", ["May 2027: outreach", "June 2027: posts"],
                ["Engagement rate: 4%", "Saves: 1,000"]), ["metric_mismatch"],
    context={"brand": LUMEN_BRAND})
add("fresh-cc-out-target-leak", "campaign", "campaign", "outreach", ALMA,
    outreach("", "oat-milk cold brew", extra=" We're aiming for a conversion rate of 2% on "
             "your code."), ["kpi_in_message"], context=CTX_OUT)
add("fresh-cc-out-whatsapp-ok", "campaign", "campaign", "outreach",
    dict(ALMA, channels=["email", "whatsapp"]),
    outreach("", "oat-milk cold brew", maya_channel="WhatsApp"), [],
    context=dict(CTX_OUT, shortlist=SHORTLIST.replace("| SMS |", "| WhatsApp |")))
add("fresh-cc-plan-fee-under", "campaign", "campaign", "plan", ALMA, plan("1,200", "SMS"), [],
    context=CTX_PLAN)
add("fresh-cc-plan-both", "campaign", "campaign", "plan", ALMA,
    plan("3,000", "WhatsApp"), ["channel_mismatch", "fee_over_budget"], context=CTX_PLAN)
for c in cases[FIRST_FRESH:]:
    c["split"] = "fresh"


def main() -> None:
    out = Path(__file__).with_name("coverage_cases.jsonl")
    with out.open("w", encoding="utf-8") as f:
        for c in cases:
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    print(f"{len(cases)} cases -> {out}")


if __name__ == "__main__":
    main()
