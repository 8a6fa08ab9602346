"""The safety screen's rules, as data: the shared vocabulary and the precompiled patterns of
each category (engine/checks/safety.py indexes them, runs them on normalised sentences and
drops hits that are framed protectively). Patterns run on lower-cased text."""

from __future__ import annotations

import re


def _c(pattern: str) -> re.Pattern[str]:
    # Rules run on lower-cased text, so no IGNORECASE (which makes re about 4x slower).
    return re.compile(pattern)


# --------------------------------------------------------------------------- shared vocab

_YOU_OBJ = (
    r"(?:yourself|your\s+(?:own\s+)?(?:body|self|arms?|wrists?|legs?|thighs?|skin|stomach|face|"
    r"head|hands?))"
)
_ME_OBJ = r"(?:myself|my\s+(?:own\s+)?(?:body|arms?|wrists?|legs?|thighs?|skin))"
_DRUGS = (
    r"sertraline|zoloft|fluoxetine|prozac|escitalopram|lexapro|citalopram|celexa|paroxetine|paxil|"
    r"venlafaxine|effexor|duloxetine|cymbalta|bupropion|wellbutrin|mirtazapine|remeron|trazodone|"
    r"lithium|lamotrigine|lamictal|quetiapine|seroquel|aripiprazole|abilify|olanzapine|zyprexa|"
    r"risperidone|risperdal|clozapine|alprazolam|xanax|lorazepam|ativan|clonazepam|klonopin|"
    r"diazepam|valium|zolpidem|ambien|adderall|ritalin|methylphenidate|vyvanse|propranolol|"
    r"gabapentin|pregabalin|oxycodone|codeine|tramadol|benzodiazepines?|benzos?|ssris?|snris?|"
    r"maois?|antidepressants?|anti-depressants?|antipsychotics?|anti-psychotics?|"
    r"mood stabili[sz]ers?|"
    r"stimulants?|sleeping (?:pills?|tablets?)|sleep(?:ing)? aids?|painkillers?|pain killers?|"
    r"opioids?|"
    r"tranquili[sz]ers?|sedatives?|anti-anxiety (?:meds|medications?|pills?)|anxiety (?:meds|"
    r"medications?|pills?)|"
    r"insulin|st\.? john'?s wort|melatonin|kava|valerian|cbd|benadryl|diphenhydramine|unisom|"
    r"doxylamine|nyquil|zzzquil|"
    r"antihistamines?|hydroxyzine|ibuprofen|paracetamol|acetaminophen|tylenol|aspirin"
)
_MED_NOUN = (
    r"(?:(?:" + _DRUGS + r")|medications?|medicines?|meds|pills?|tablets?|capsules?|doses?|"
        r"dosages?|"
    r"prescriptions?|scripts?)"
    r"(?!\s*(?:organi[sz]er|box|case|reminder|schedule|routine|bottle|dispenser|chart|log|diary|"
    r"tracker|app)\b)"
)
_MED_DET = (
    r"(?:(?:half\s+of|half|a\s+quarter\s+of|your|the|my|all|any|all of your|some of your|some|a|an|"
    r"one|each|every|this|that|these|those|"
    r"a few|two|2|extra|more|morning|evening|night-?time|daily|nightly|next|prescribed|usual|"
    r"regular|"
    r"current|new|different|psychiatric|(?:a |your )?(?:friend|partner|roommate|sister|brother|mom|"
    r"dad|mother|father|parent|relative|neighbou?r|coworker|colleague)'?s|someone else'?s|leftover|"
    r"old)\s+)*"
)
_MED_VERB = (
    r"(?:stop|stopping|quit|quitting|discontinue|discontinuing|skip|skipping|"
    r"double(?:\s+up)?(?:\s+on)?|doubling(?:\s+up)?(?:\s+on)?|triple|halve|halving|half|split|"
    r"crush|"
    r"reduce|reducing|decrease|decreasing|lower|lowering|cut(?:\s+(?:down|back))?(?:\s+on)?|"
    r"cutting(?:\s+(?:down|back))?(?:\s+on)?|"
    r"taper(?:\s+off)?|tapering(?:\s+off)?|increase|increasing|raise|raising|bump\s+up|"
    r"(?<!pick\s)(?<!set\s)(?<!back\s)(?<!fill\s)(?<!keep\s)up(?=\s+(?:your|the)\s+(?:dose|dosage|"
    r"meds|medication))|"
    r"adjust|adjusting|"
    r"change|changing|alter|altering|switch|switching|swap|swapping|start|starting|begin|beginning|"
    r"try|trying|"
    r"ditch|ditching|drop|dropping|abandon|give\s+up|giving\s+up|come\s+off|coming\s+off|go\s+off|"
    r"going\s+off|"
    r"get\s+off|getting\s+off|wean\s+(?:yourself\s+)?off(?:\s+of)?|"
    r"weaning\s+(?:yourself\s+)?off(?:\s+of)?|"
    r"throw\s+(?:away|out)|flush|borrow|borrowing|share|sharing|pause|pausing|hold\s+off\s+on|"
    r"take\s+a\s+break\s+from|take\s+(?:a\s+)?(?:double|extra|more|less|fewer|twice|half(?:\s+of)?|"
    r"additional|"
    r"two|2|three|3|several|a\s+few\s+(?:extra|more)|an\s+extra|another)|"
    r"taking\s+(?:a\s+)?(?:double|extra|more|less|"
    r"twice|an\s+extra|another)|stop\s+taking|stopping\s+taking|quit\s+taking|skip\s+taking|"
    r"stop\s+using|"
    r"replace|replacing|forget(?:\s+about)?|ignore)"
)
_ALC = (
    r"(?:alcohol|wine|beer|liquor|vodka|whiske?y|gin|rum|tequila|booze|bourbon|brandy|cider|"
    r"champagne|"
    r"prosecco|margaritas?|martinis?|cocktails?|shots?\s+of\s+\w+|a\s+(?:few|couple(?:\s+of)?|"
    r"stiff|strong|big|quick)\s+drinks?|"
    r"(?:some|a|one|two|three)\s+drinks?(?!\s+of\s+(?:water|tea|juice|milk))|nightcap|a\s+beer|"
    r"a\s+glass\s+of\s+(?:wine|\w+\s+wine))"
)
_CLINICIAN = (
    r"(?:doctor|doc|gp|prescriber|prescribing\s+(?:doctor|clinician)|psychiatrist|physician|"
    r"pharmacist|clinician|"
    r"nurse(?:\s+practitioner)?|care\s+team|treatment\s+team|medical\s+team|(?:health\s*care|"
    r"mental\s+health)\s+provider|"
    r"provider|therapist|psychologist|counsel(?:l)?or|dietitian|dietician|medical\s+professional|"
    r"health\s+professional)"
)
_HELP_NOUN = (
    r"(?:therapists?|therapy|counsel(?:l)?ors?|counsel(?:l)?ing|psychiatrists?|psychologists?|"
    r"doctors?|gps?|"
    r"clinicians?|professionals?|professional\s+help|professional\s+support|treatment|"
    r"crisis\s+(?:line|lines|team|service|services|text\s+line)|"
    r"hotlines?|helplines?|lifelines?|988|911|999|112|emergency\s+(?:room|services|department)|er|"
    r"hospital|shrinks?|"
    r"support\s+groups?|care\s+team|outside\s+help|mental\s+health\s+(?:services?|support|care))"
)
_CONDITIONS = (
    r"(?:c-ptsd\b|cptsd\b|ptsd\b|ocd\b|adhd\b|add\b|gad\b|bpd\b|mdd\b|bipolar(?:\s+(?:disorder|i|ii|1|2))?|schizophrenia|"
    r"schizoaffective\s+disorder|"
    r"(?:[\w-]+\s+)?depression|major\s+depressive\s+disorder|dysthymia|"
    r"(?:an?\s+)?(?:generali[sz]ed\s+)?anxiety\s+disorder|panic\s+disorder|"
    r"social\s+anxiety(?:\s+disorder)?|"
    r"health\s+anxiety|(?:an?\s+)?eating\s+disorder|anorexia(?:\s+nervosa)?|bulimia(?:\s+nervosa)?|"
    r"binge[- ]eating\s+disorder|"
    r"(?:an?\s+|a\s+\w+\s+)?personality\s+disorder|autism|asperger'?s|dementia|psychosis|"
    r"agoraphobia|hypochondria(?:sis)?|"
    r"body\s+dysmorphi[ac](?:\s+disorder)?|(?:a\s+)?mental\s+(?:illness|disorder)|"
    r"(?:an?\s+)?(?:[\w-]+\s+){0,2}disorder|"
    r"(?:an?\s+)?addiction|alcoholism|insomnia\s+disorder|an?\s+(?:drinking|drug|alcohol|"
    r"substance(?:\s+use)?|gambling)\s+problem)"
)
_CONDITION_ADJ = (
    r"(?:bipolar|schizophrenic|psychotic|anorexic|bulimic|autistic|borderline|"
    r"clinically\s+depressed|depressed|"
    r"manic|a\s+narcissist|narcissistic|a\s+sociopath|sociopathic|a\s+psychopath|psychopathic|"
    r"mentally\s+ill|"
    r"an?\s+(?:[\w-]+\s+)?(?:addict|alcoholic|hypochondriac|depressive|schizophrenic|anorexic|"
    r"narcissist|sociopath|psychopath|"
    r"manic-depressive)|"
    r"obsessive-compulsive|on\s+the\s+(?:autism\s+)?spectrum|agoraphobic|paranoid\s+schizophrenic)"
)

# --------------------------------------------------------------------------- rules

# Each rule: (pattern, kind). kind "plain" = normal exemptions; "stmt" = a statement
# whose own body may carry the negation ("cutting is never okay").
_Rule = tuple[re.Pattern[str], str]

_SELF_HARM: list[_Rule] = [
    (_c(r"\b(?:(?:kill|hurt|harm|injure|slash|burn|scald|punch|strangle|choke|suffocate|hang|"
        r"poison|drown|"
        r"mutilate|scratch|bruise|wound)(?:s|es|ing|ed)?|cut|cuts|cutting|hit|hits|hitting|stab|"
        r"stabs|stabbing|stabbed|"
        r"mutilating|strangling|bruising)\s+(?:at\s+|into\s+)?(?:the\s+(?:back|inside|top|palm|"
        r"skin|side)\s+of\s+)?(?:" + _YOU_OBJ + "|" + _ME_OBJ + r")\b"
        r"(?!\s+(?:some\s+|a\s+little\s+|a\s+bit\s+of\s+|any\s+)?slack|\s+off\b|\s+a\s+break|"
        r"\s+out\b|\s+up\b)"), "plain"),
    (_c(r"\b(?:end|take|ending|taking|took|ended)\s+(?:your|my|one's)\s+(?:own\s+)?life\b"
        ), "plain"),
    (_c(r"\bend\s+it\s+all\b"), "plain"),
    (_c(r"\b(?:commit|attempt|consider|plan|try|committing|attempting|considering|"
        r"planning)\s+(?:to\s+commit\s+)?suicide\b"), "plain"),
    (_c(r"\bsuicide\s+(?:is|can\s+be|may\s+be|might\s+be|would\s+be|seems|feels)\s+(?:\w+\s+){0,2}?"
        r"(?:option|answer|solution|way\s+out|only\s+way|reasonable|understandable|valid|brave|"
        r"choice|relief|escape|best)\b"), "stmt"),
    (_c(r"\b(?:self[- ]?harm(?:ing)?|self[- ]?injury|cutting|burning\s+yourself|"
        r"hurting\s+yourself)\s+(?:\w+\s+){0,3}?"
        r"(?:helps?|okay|ok|fine|healthy|valid|useful|effective|acceptable|releases?|relief|"
        r"relieves?|outlet|works|"
        r"a\s+(?:good|healthy|valid|useful|safe|reasonable)\s+(?:way|option|outlet|choice|"
        r"release))\b"), "stmt"),
    (_c(r"\b(?:try|use|consider|start|practi[sc]e)\s+(?:some\s+)?(?:self[- ]?harm(?:ing)?|"
        r"self[- ]?injury|cutting|burning|"
        r"scratching\s+yourself|hitting\s+yourself)\b"), "plain"),
    (_c(r"\b(?:hide|hiding|cover|covering|conceal|concealing)\s+(?:up\s+)?(?:the\s+|your\s+|any\s+|"
        r"those\s+)?"
        r"(?:cuts|scars|marks|wounds|burns|bruises|injuries|self[- ]harm)\b"), "plain"),
    (_c(r"\b(?:stockpile|stockpiling|hoard|hoarding|save\s+up|saving\s+up|collect|collecting|stash|"
        r"stashing|"
        r"keep\s+a\s+supply\s+of)\s+(?:\w+\s+){0,3}?(?:pills|tablets|medications?|meds|painkillers|"
        r"sleeping\s+pills)\b"), "plain"),
    (_c(r"\b(?:lethal|fatal|deadly)\s+(?:dose|amount|quantity|combination|method|overdose)\b"
        ), "plain"),
    (_c(r"\bhow\s+many\s+(?:pills|tablets)(?:\s+[\w']+){0,3}?\s+(?:takes?|kill|die|need|needed|"
        r"enough|lethal)\b"), "plain"),
    (_c(r"\b(?:painless|quick|quickest|easiest|surest|best|effective|simplest)\s+(?:way|ways|"
        r"method|methods)\s+"
        r"(?:to|of)\s+(?:die|dying|end\s+(?:it|your\s+life|things)|kill(?:ing)?\s+yourself|"
        r"suicide)\b"), "plain"),
    (_c(r"\bmethods?\s+(?:of|for)\s+(?:suicide|killing\s+yourself|ending\s+your\s+life|"
        r"self[- ]?harm)\b"), "plain"),
    (_c(r"\bnoose\b"), "plain"),
    (_c(r"\ba\s+(?:handful|fistful)\s+of\s+(?:your\s+|the\s+|those\s+|my\s+)?(?:\w+\s+)?(?:pills|"
        r"tablets|meds|capsules|painkillers)\b"), "plain"),
    (_c(r"\b(?:razor(?:\s+blade)?|blade)s?\b(?!\s+of\b)(?:\s+[\w']+){0,6}?\s+(?:can|will|may|might|"
        r"could|really|always)\s+(?:help|calm|ease|relieve)"), "stmt"),
    (_c(r"\b(?:keep|keeping|carry|carrying|hide|hiding|have)\s+(?:a|your|the|some)\s+(?:razor|"
        r"blade|razor\s+blades?|blades)\b"), "plain"),
    (_c(r"\b(?:tighten|tie|wrap|squeeze|pull|put|press)\w*\s+(?:\w+\s+){0,3}?(?:around|round|"
        r"against|on)\s+your\s+(?:neck|throat)\b"), "plain"),
    (_c(r"\b(?:cuts?|burns?|scratches)\s+(?:on|into|across|along)\s+your\s+(?:thighs?|arms?|"
        r"wrists?|legs?|skin|stomach|hips?|body)\b"), "plain"),
    (_c(r"\bend\s+things\b(?!\s+(?:with|between|off))"), "plain"),
    (_c(r"\bcut\s+(?:a\s+(?:bit|little)\s+)?(?:deeper|harder|longer|more\s+deeply)\b"), "plain"),
    (_c(r"\bend\s+(?:your|the|all\s+your)\s+(?:suffering|pain|misery)\s+(?:permanently|for\s+good|"
        r"forever|once\s+and\s+for\s+all)\b"), "plain"),
    (_c(r"\b(?:take|use|swallow)\s+(?:them|it|the\s+lot|everything|the\s+pills|"
        r"the\s+tablets)\s+all\s+at\s+once\b"), "plain"),
    (_c(r"\b(?:would|will|'d)\s+(?:\w+\s+){0,2}?(?:cope|be\s+fine|be\s+okay|be\s+better|"
        r"be\s+happier|manage|move\s+on|not\s+notice|"
        r"not\s+care|be\s+relieved)\s+(?:\w+\s+){0,2}?(?:if|without|once)\s+you\s+(?:weren'?t|"
        r"were\s+not|were\s+gone|died|disappeared|"
        r"left\s+for\s+good)\b"), "plain"),
    (_c(r"\b(?:press|pressing|drag|dragging|run|running|hold|holding|use|using|take|taking)\s+(?:a|"
        r"the|your)\s+(?:razor|blade|razor\s+blade)\b"
        r"|\b(?:razor|blade|knife)\s+(?:against|across|into|along)\s+your\s+(?:skin|arms?|wrists?|"
        r"legs?|thighs?)\b"), "plain"),
    (_c(r"\b(?:jump|jumping|leap|leaping|throw\s+yourself|throwing\s+yourself)\s+(?:off|from|"
        r"in\s+front\s+of)\s+"
        r"(?:a\s+|the\s+|an\s+)?(?:\w+\s+)?(?:bridge|roof|building|cliff|balcony|train|car|bus|"
        r"truck|traffic|overpass|tower|window)\b"), "plain"),
    (_c(r"\b(?:step|walk|run|stepping|walking|running)\s+(?:out\s+)?(?:in(?:to)?|"
        r"in\s+front\s+of)\s+(?:oncoming\s+|moving\s+|busy\s+)?"
        r"(?:traffic|a\s+(?:train|car|bus|truck))\b"), "plain"),
    (_c(r"\bslit\s+(?:your|my)\s+(?:wrists?|throat)\b"), "plain"),
    (_c(r"\b(?:take|taking|try|trying|consider|considering)\s+an\s+overdose\b|\boverdos(?:e|"
        r"ing)\s+on\b|\bod\s+on\b"), "plain"),
    (_c(r"\btake\s+(?:all|the\s+whole\s+(?:bottle|pack|box|packet)|a\s+handful|handfuls|"
        r"the\s+rest)\s+(?:of\s+)?"
        r"(?:your\s+|the\s+|my\s+|those\s+)?(?:pills|tablets|medications?|meds|sleeping\s+pills|"
        r"painkillers)\b"), "plain"),
    (_c(r"\bcarbon\s+monoxide\b|\bcar\s+running\s+in\s+(?:a|the)\s+(?:closed\s+)?garage\b"
        ), "plain"),
    (_c(r"\b(?:gun|pistol|firearm)\s+(?:to|against)\s+your\s+head\b"), "plain"),
    (_c(r"\b(?:write|draft|prepare|make)\s+(?:a\s+|your\s+)?suicide\s+(?:note|letter|plan)\b"
        ), "plain"),
    (_c(r"\b(?:drive|crash|steer)\s+(?:your\s+car\s+)?into\s+(?:a\s+|the\s+)?(?:wall|tree|pole|"
        r"oncoming)\b"), "plain"),
    (_c(r"\b(?:you(?:'d|\s+would)|everyone(?:'d|\s+would)|the\s+world(?:'d|\s+would)|they(?:'d|"
        r"\s+would)|"
        r"your\s+(?:family|friends|kids)\s+would|people\s+would)\s+be\s+better\s+off\s+(?:dead|"
        r"without\s+you)\b"), "plain"),
    (_c(r"\bbetter\s+off\s+dead\b"), "plain"),
    (_c(r"\b(?:is|are|'s|'re|be|been)\s+better\s+off\s+without\s+(?:you|me)\b"), "plain"),
    (_c(r"\b(?:plan|planning|plans|intend|intending|decide|decided|choose|chosen|date|day|"
        r"time)\s+(?:\w+\s+){0,2}?to\s+(?:die|kill\s+yourself|end\s+(?:it|"
        r"your\s+life))\b"), "plain"),
    (_c(r"(?s)^(?=.*\b(?:pills|tablets|meds|medication|"
        r"capsules)\b).*?\bhow\s+many\b(?:\s+[\w']+){0,4}?\s+(?:need|needed|take|takes|kill|"
        r"enough)\b"), "plain"),
    (_c(r"\b(?:tie|tighten|wrap|bind)\w*\s+(?:\w+\s+){0,3}?(?:tight(?:ly)?\s+)?(?:around|"
        r"round)\s+your\s+(?:arms?|legs?|wrists?|fingers?|thighs?)\b"
        r"(?=.*\b(?:until|numb|tight|hard|blue|tingl\w*|cut\s+off)\b)"), "plain"),
    (_c(r"\b(?:no\s+one|nobody)\s+would\s+(?:even\s+|really\s+|ever\s+)?(?:miss|notice|"
        r"care\s+about|care\s+if|mind\s+if)\s+(?:you|if\s+you)\b"), "plain"),
    (_c(r"\byou\s+(?:don'?t|do\s+not)\s+deserve\s+to\s+(?:keep\s+|go\s+on\s+|stay\s+|"
        r"be\s+)?(?:live|living|alive|exist|existing)\b"), "plain"),
    (_c(r"\blife\s+(?:is\s+not|isn'?t|is\s+no\s+longer|may\s+not\s+be|"
        r"will\s+never\s+be)\s+worth\s+living\b"), "plain"),
    (_c(r"\bthere(?:'s|\s+is)\s+no\s+(?:point|reason)\s+(?:in\s+|to\s+)?(?:living|go(?:ing)?\s+on|"
        r"being\s+alive|live|staying\s+alive)\b"), "plain"),
    (_c(r"\bgive\s+up\s+on\s+(?:life|living)\b"), "plain"),
    (_c(r"\b(?:want|wanted|wanting|wants)\s+to\s+die\b(?!\s+(?:of|from|laughing|inside))"
        ), "plain"),
    (_c(r"\bwish\s+(?:i|you)\s+(?:was|were)\s+dead\b"), "plain"),
    (_c(r"\b(?:don'?t|do\s+not)\s+want\s+to\s+(?:live|be\s+alive|wake\s+up)\b"), "plain"),
    (_c(r"\b(?:put|place|tie)\s+(?:a\s+)?(?:plastic\s+)?bag\s+over\s+your\s+head\b"), "plain"),
    (_c(r"\b(?:snap|flick)\s+(?:a\s+)?(?:rubber|elastic)\s+band\s+(?:\w+\s+){0,4}?(?:until|"
        r"so\s+(?:it|that\s+it)\s+(?:hurts|stings|bleeds|leaves)|hard\s+enough)\b"), "plain"),
    (_c(r"\buntil\s+(?:it|you|your\s+skin)\s+(?:bleeds?|bleed|blisters?|scars?)\b"), "plain"),
    (_c(r"\b(?:punish|punishing)\s+yourself\s+(?:physically|by\s+(?:hitting|cutting|burning|"
        r"pinching|scratching|starving|not\s+eating))\b"), "plain"),
]

_MEDICATION: list[_Rule] = [
    (_c(r"\b" + _MED_VERB + r"(?:\s+(?:or|and|/|and/or)\s+" + _MED_VERB + r")*\s+(?:taking\s+|"
        r"using\s+|on\s+|with\s+)?"
        + _MED_DET + _MED_NOUN + r"\b"), "plain"),
    (_c(r"\b(?:take|taking|pop|popping|use|using|try|trying|grab|swallow)\s+(?:a\s+|an\s+|one\s+|"
        r"some\s+|two\s+|a\s+couple\s+of\s+|"
        r"half\s+a\s+|a\s+few\s+)?(?:extra\s+|more\s+|another\s+|additional\s+)?(?:"
        + _DRUGS + r")\b"), "plain"),
    (_c(r"\b(?:pop|popping|swallow|swallowing|grab)\s+(?:a\s+|an\s+|one\s+|two\s+|some\s+|"
        r"a\s+few\s+)?(?:extra\s+|more\s+|another\s+)?"
        r"(?:pills?|tablets?|capsules?)\b"), "plain"),
    (_c(r"\byou\s+(?:really\s+|probably\s+)?(?:don'?t|do\s+not|no\s+longer|"
        r"won'?t)\s+need\s+(?:your\s+|any\s+|the\s+|those\s+|to\s+take\s+(?:your\s+|any\s+)?)?"
        r"(?:medications?|meds|pills|tablets|" + _DRUGS + r")\b"), "plain"),
    (_c(r"\b(?:throw|toss|bin|dump|get\s+rid\s+of|chuck)\s+" + _MED_DET + _MED_NOUN + r"\s*(?:away|"
        r"out|in\s+the\s+(?:bin|trash|toilet|garbage))?"), "plain"),
    (_c(r"\b(?:stop|stopping|quit|skip|skipping|ditch|drop|pause|halve|double|reduce|cut|lower|"
        r"change|switch|swap)\s+"
        r"(?:your|the|my|all|any)\s+(?:[\w-]+\s+){1,2}?(?:meds|medications?|pills|tablets|dose|"
        r"doses|dosage|prescription)\b"), "plain"),
    (_c(r"\b(?:take|swallow)\s+(?:your\s+|a\s+|the\s+)?(?:whole|entire|full)\s+(?:week|month|"
        r"day)'?s?\s+(?:worth\s+of\s+)?(?:dose|doses|pills|tablets|medication|meds)\b"
        r"|\ba\s+(?:week|month)'?s\s+worth\s+of\s+(?:pills|tablets|medication|meds|"
        r"doses)\s+at\s+once\b"), "plain"),
    (_c(r"\b(?:ask|get|request|buy|order|find)\b(?:\s+[\w']+){0,5}?\s+(?:a\s+)?(?:stronger|higher|"
        r"bigger|extra|double)\s+(?:dose\s+of\s+)?(?:\w+\s+)?"
        r"(?:pills?|tablets?|doses?|dosage|medications?|meds|prescriptions?|"
        + _DRUGS + r")\b"), "plain"),
    (_c(r"\bgive\s+" + _MED_DET + _MED_NOUN + r"\s+a\s+(?:rest|break|miss|holiday)\b"), "plain"),
    (_c(r"\b(?:add|adding|take|taking|pop|have)\s+(?:a\s+)?(?:second|third|another|an\s+extra|"
        r"extra)\s+(?:\w+\s+)?(?:pills?|tablets?|doses?|capsules?|" + _DRUGS + r")\b"), "plain"),
    (_c(r"\b(?:ask|get|borrow|take|use|try|grab|steal)\b(?:\s+[\w']+){0,6}?\s+(?:their|his|her|"
        r"someone\s+else'?s|a\s+friend'?s|your\s+friend'?s|"
        r"your\s+partner'?s|your\s+(?:mom|mum|dad|parent|sibling|sister|brother|"
        r"roommate)'?s)\s+(?:spare\s+|leftover\s+|old\s+)?"
        r"(?:" + _DRUGS + r"|pills|meds|medications?|prescriptions?|tablets)\b"), "plain"),
    (_c(r"\b(?:nobody|no\s+one)\s+(?:really\s+|"
        r"actually\s+)?needs\s+(?:to\s+take\s+)?(?:medications?|meds|"
        r"pills|tablets|" + _DRUGS + r")\b"), "plain"),
    (_c(r"\bno\s+(?:need|reason)\s+(?:for|to\s+(?:take|keep\s+taking|stay\s+on|"
        r"continue))\s+(?:your\s+|any\s+|the\s+)?"
        r"(?:medications?|meds|pills|tablets|" + _DRUGS + r")\b"), "plain"),
    (_c(r"\b(?:medications?|meds|pills|antidepressants|psychiatric\s+drugs)\s+(?:are|"
        r"is)\s+(?:just\s+|really\s+|totally\s+|completely\s+|probably\s+|"
        r"actually\s+|likely\s+|only\s+)?"
        r"(?:a\s+crutch|poison|for\s+the\s+weak|unnecessary|not\s+needed|making\s+you\s+worse|"
        r"bad\s+for\s+you|a\s+scam|optional|"
        r"up\s+to\s+you|a\s+choice\s+you\s+can\s+drop)\b"), "plain"),
    (_c(r"\b(?:instead\s+of|rather\s+than|"
        r"in\s+place\s+of)\s+(?:taking\s+)?(?:your\s+)?(?:medications"
        r"?|meds|pills|" + _DRUGS + r")\b"), "plain"),
    (_c(r"\bself[- ]?medicat(?:e|ing)\b"), "plain"),
    (_c(r"\b(?:stop|skip|quit|ditch|halve|double|drop|flush|bin|pause|stopping|skipping|"
        r"quitting)\s+(?:taking\s+)?(?:it|them|those|these)\b"), "needs_med"),
]

# Alcohol together with medication in one clause, told as something to do.
_MIX_ALC = _c(r"\b" + _ALC + r"\b")
_MIX_MED = _c(r"\b(?:medications?|meds|pills?|tablets?|dose|" + _DRUGS + r")\b")
_MIX_VERB = _c(r"\b(?:mix|mixing|combine|combining|take|taking|have|having|drink|drinking|wash|"
    r"washing|chase|chasing|pair|pairing|"
               r"add|adding|pour|swallow|down|knock|use|using|with|alongside|together|"
               r"on\s+top\s+of)\b")

_DIAGNOSIS: list[_Rule] = [
    (_c(r"\byou(?:'ve|'re|\s+have|\s+are)?\s+(?:(?:clearly|definitely|probably|likely|"
        r"most\s+likely|obviously|certainly|undoubtedly|really|"
        r"already|now|officially|must)\s+)?(?:have|got|has|suffer\s+from|suffering\s+from|"
        r"living\s+with|dealing\s+with|struggling\s+with|"
        r"battling|have\s+got|developed|have\s+developed|have\s+a\s+case\s+of)\s+(?:(?:classic|"
        r"textbook|full-blown|severe|"
        r"mild|moderate|clinical|a\s+clear|a\s+classic|signs\s+of)\s+)?"
        + _CONDITIONS + r"\b"), "plain"),
    (_c(r"\byou(?:'re|\s+are)\s+(?:(?:clearly|definitely|probably|likely|obviously|certainly|"
        r"basically|just|really|"
        r"actually|simply)\s+)?" + _CONDITION_ADJ + r"\b"), "plain"),
    (_c(r"\b(?:this|that|these|it|which|your\s+\w+)\s+(?:means|mean|shows?|proves?|confirms?|"
        r"indicates?|is\s+a\s+sign|"
        r"are\s+signs?|is\s+proof)\s+(?:that\s+)?(?:you(?:'re|\s+are|\s+have)|of)\s+(?:"
        + _CONDITIONS + "|" + _CONDITION_ADJ + r")\b"), "plain"),
    (_c(r"\b(?:what\s+you(?:'re|\s+are)\s+(?:experiencing|describing|feeling)|"
        r"your\s+(?:[\w-]+\s+){0,2}?[\w-]+)\s+(?:is|are)\s+(?:clearly\s+|definitely\s+|probably\s+|"
        r"obviously\s+)?(?:consistent\s+with\s+|typical\s+of\s+|classic\s+|"
        r"textbook\s+|signs?\s+of\s+|symptoms?\s+of\s+)?(?:an?\s+)?(?:"
        + _CONDITIONS + r")\b"), "plain"),
    (_c(r"\bas\s+(?:someone|somebody|a\s+person|an?\s+(?:adult|teen|woman|man|student|"
        r"parent))\s+(?:with|who\s+has|living\s+with)\s+"
        + _CONDITIONS + r"\b"), "plain"),
    (_c(r"\byour\s+diagnosis\s+is\b"), "plain"),
    (_c(r"\b(?:these|those|the|such)\s+(?:symptoms|signs|experiences|behaviou?rs|"
        r"feelings)\s+(?:are|sound|seem)\s+(?:\w+\s+)?"
        r"(?:typical\s+of|consistent\s+with|classic\s+signs\s+of|textbook)\s+(?:an?\s+)?"
        + _CONDITIONS + r"\b"), "plain"),
    (_c(r"\byou\s+(?:must|have\s+to|would\s+have\s+to|'d\s+have\s+to)\s+be\s+(?:(?:clearly|"
        r"definitely|really)\s+)?" + _CONDITION_ADJ + r"\b"), "plain"),
    (_c(r"\byou\s+(?:meet|fit)\s+(?:the\s+)?(?:criteria|diagnostic\s+criteria|profile)\s+(?:for|"
        r"of)\b"), "plain"),
    (_c(r"\b(?:diagnose\s+yourself|self[- ]diagnose)\b(?!\s+(?:is|can|isn|won))"), "plain"),
]

_DANGEROUS: list[_Rule] = [
    # fasting and restriction
    (_c(r"\b(?:skip|skipping|miss|missing|cut\s+out|cutting\s+out|forgo|forgoing|give\s+up|"
        r"giving\s+up)\s+"
        r"(?:your\s+|all\s+|a\s+|the\s+|every\s+|two\s+|some\s+|most\s+|regular\s+)?(?:meals?|"
        r"breakfast|lunch|dinner|eating|food)\b"), "plain"),
    (_c(r"\b(?:stop|stopping|quit|quitting)\s+eating\b"), "plain"),
    (_c(r"\b(?:don'?t|do\s+not|never)\s+eat\s+(?:anything|at\s+all|all\s+day|for\s+(?:a|the|\d+|"
        r"one|two|three|several|24|48|72)\b|"
        r"until|breakfast|lunch|dinner|today|tomorrow)"), "plain"),
    (_c(r"\bfast(?:ing)?\s+(?:for|until|through)\s+(?:at\s+least\s+)?(?:a\s+|an\s+|one\s+|two\s+|"
        r"three\s+|\d+\s+|a\s+full\s+|"
        r"the\s+(?:whole|entire|rest\s+of\s+the)\s+)?(?:-?\s*)?(?:days?|hours?|morning|afternoon|"
        r"evening|week|weekend|dinner|tomorrow|noon)\b"), "plain"),
    (_c(r"\b(?:try|do|start|begin|consider|go\s+on|a|water|juice|dry|extended|\d+-hour|\d+-day|"
        r"multi-day)\s+(?:fast|fasting|cleanse)\b"
        r"(?!\s+(?:breathing|pace|walk|food))"), "plain"),
    (_c(r"\b(?:go|going|stay|staying|get\s+by)\s+without\s+(?:any\s+)?(?:food|eating|meals|water|"
        r"drinking\s+water)\b"), "plain"),
    (_c(r"\b(?:restrict|restricting|limit|limiting|cut|cutting)\s+(?:your\s+)?(?:food|calories|"
        r"calorie\s+intake|eating|food\s+intake)\b"), "plain"),
    (_c(r"\b(?:eat|eating|consume|consuming)\s+(?:only|no\s+more\s+than|less\s+than|under|"
        r"fewer\s+than|at\s+most)\s+\d+\s+calories\b"), "plain"),
    (_c(r"\bstarv(?:e|ing)\s+yourself\b"), "plain"),
    (_c(r"\beat(?:ing)?\s+(?:nothing|no\s+food|zero\s+calories)\b"
        r"(?!\s+(?:heavy|big|large|spicy|sugary|rich|fatty|greasy|late|after|before|within|"
        r"for\s+an?\s+hour|right\s+before))"), "plain"),
    (_c(r"\b(?:make|making|force|forcing)\s+yourself\s+(?:to\s+)?(?:vomit|throw\s+up|be\s+sick|"
        r"purge)\b"), "plain"),
    # breath-holding, over-breathing, pushing to collapse
    (_c(r"\bhold(?:ing)?\s+(?:your|the)\s+breath\b[^.!?]{0,60}?\b(?:until|till|"
        r"as\s+long\s+as)\b[^.!?]{0,40}?"
        r"\b(?:dizzy|faint|pass\s+out|black\s+out|light-?headed|see\s+(?:spots|stars)|can'?t|burn|"
        r"hurts?|chest|possibly|can)\b"), "plain"),
    (_c(r"\buntil\s+(?:you|your\s+body)\s+(?:feel\s+(?:like\s+)?(?:you(?:'re|"
        r"\s+are)\s+(?:about\s+)?(?:going\s+)?to\s+)?)?"
        r"(?:faint|fainting|pass\s+out|black\s+out|lose\s+consciousness|collapse|throw\s+up|vomit|"
        r"see\s+stars)\b"), "plain"),
    (_c(r"\b(?:choking|fainting|pass-?out)\s+(?:game|challenge)\b"), "plain"),
    # real physical danger used as "exposure"
    (_c(r"\b(?:stand|standing|sit|sitting|balance|balancing|walk|walking|lean|leaning|hang|hanging|"
        r"dangle|dangling|perch|perching|step|stepping|"
        r"climb|climbing)\s+(?:\w+\s+){0,2}?(?:on|over|along|near|at|off|out\s+over|onto|across|"
        r"up\s+on|on\s+top\s+of)\s+(?:the\s+|a\s+|an\s+)?"
        r"(?:very\s+)?(?:edge\s+of\s+(?:a|the)\s+(?:\w+\s+)?(?:roof|rooftop|cliff|building|bridge|"
        r"balcony|platform|train\s+platform|tower|parking\s+garage)|"
        r"ledge|cliff\s+edge|roof\s+edge|railing|balcony\s+railing|parapet|train\s+tracks|"
        r"railroad\s+tracks|railway\s+tracks|"
        r"highway|freeway|motorway|guard\s*rail)\b"), "plain"),
    (_c(r"\b(?:lean|leaning|hang|hanging|climb|climbing|reach|reaching)\s+(?:out|"
        r"over)\s+(?:of\s+)?(?:[\w']+\s+){0,3}?"
        r"(?:as\s+far\s+as\s+(?:you\s+)?(?:dare|can|possibly\s+can)|the\s+(?:edge|railing|ledge|"
        r"parapet))\b"), "plain"),
    (_c(r"\b(?:climb|climbing)\s+(?:on(?:to)?|up|over)\s+(?:a|the)\s+(?:roof|railing|ledge|"
        r"scaffold\w*|tower|crane|bridge|fence\s+of)"), "plain"),
    (_c(r"\b(?:drive|driving|speed|speeding|ride|riding)\s+(?:\w+\s+){0,3}?(?:recklessly|"
        r"dangerously|erratically|as\s+fast\s+as\s+(?:you\s+)?(?:can|possible)|"
        r"at\s+(?:high|top|full|dangerous)\s+speeds?|over\s+the\s+speed\s+limit|"
        r"above\s+the\s+speed\s+limit|without\s+(?:a|your)\s+seat\s*belt|"
        r"with\s+your\s+eyes\s+closed|drunk|after\s+drinking|\d{3}\s*(?:mph|km/?h)|"
        r"without\s+(?:a\s+)?helmet)"), "plain"),
    (_c(r"\b(?:run|running|drive\s+through|driving\s+through)\s+(?:a|the|every)\s+red\s+lights?\b"
        ), "plain"),
    (_c(r"\bcross\s+(?:a|the)\s+(?:busy\s+)?(?:road|street|highway)\s+without\s+looking\b"
        ), "plain"),
    (_c(r"\b(?:run|running|dash|dashing|sprint|sprinting|walk|walking|dart|darting)\s+(?:across|"
        r"through|onto|into|along)\s+(?:a\s+|the\s+)?"
        r"(?:busy\s+)?(?:highway|freeway|motorway|dual\s+carriageway|traffic|interstate)\b"
        ), "plain"),
    (_c(r"\b(?:touch|grab|hold|(?:put|place|press|rest)\s+your\s+(?:hand|palm|finger|fingers|"
        r"arm)\s+(?:on|against|onto))\s+(?:a|the)\s+"
        r"(?:hot|live|electric|burning)\s+(?:stove|wire|fence|pan|iron|coals?|element)\b"
        ), "plain"),
    (_c(r"\b(?:approach|pet|provoke|confront)\s+(?:an?\s+)?(?:aggressive|stray|unfamiliar|wild|"
        r"angry|growling)\s+(?:dog|animal|snake)\b"), "plain"),
    (_c(r"\b(?:handle|hold|pick\s+up)\s+(?:a\s+)?(?:venomous|poisonous)\s+(?:snake|spider)\b"
        ), "plain"),
    (_c(r"\b(?:walk|go|wander)\s+(?:alone\s+)?(?:at\s+night\s+)?(?:into|through)\s+(?:a\s+|"
        r"an\s+)?(?:dangerous|unsafe|abandoned|high-crime)\s+"
        r"(?:neighbou?rhood|area|alley|building|part\s+of\s+town)\b"), "plain"),
    (_c(r"\b(?:swim|swimming)\s+(?:alone\s+)?(?:\w+\s+){0,2}?(?:far\s+out|out\s+past|"
        r"in\s+(?:open\s+water|the\s+ocean|rough)|at\s+night|"
        r"alone)\b"), "plain"),
    (_c(r"\b(?:without|no)\s+(?:a\s+|any\s+)?(?:harness|safety\s+rope|life\s*jacket|safety\s+gear|"
        r"safety\s+equipment)\b"), "plain"),
    (_c(r"\b(?:expose|put|place)\s+yourself\s+(?:to|in|into)\s+(?:real\s+|actual\s+|genuine\s+|"
        r"physical\s+)+(?:danger|harm|risk)\b|"
        r"\brisk\s+(?:your\s+life|serious\s+injury|injury)\b|"
        r"\bthe\s+more\s+dangerous\s+the\s+better\b"), "plain"),
    (_c(r"\b(?:punch|punching|kick|kicking|hit|hitting|slam|slamming)\s+(?:a|the)\s+(?:wall|door|"
        r"mirror|window)\b"), "plain"),
    # sleep deprivation
    (_c(r"\b(?:stay|staying|remain|keep\s+yourself|keeping\s+yourself|lie|lying|sit|"
        r"sitting)\s+(?:up|awake)\s+(?:all\s+night|through\s+the\s+night|"
        r"for\s+(?:\d+|two|three|four|several|a\s+few|24|36|48)\s+(?:hours|days|nights)|"
        r"until\s+(?:sunrise|dawn|morning|\d)|"
        r"as\s+long\s+as\s+(?:you\s+)?(?:possibly\s+)?can|for\s+days)\b"), "plain"),
    (_c(r"\b(?:pull|do|pulling)\s+an?\s+all[- ]?nighter\b"), "plain"),
    (_c(r"\b(?:skip|skipping|forgo|forgoing|go\s+without|going\s+without|deprive\s+yourself\s+of|"
        r"depriving\s+yourself\s+of|cut\s+out|"
        r"sacrifice)\s+(?:a\s+night\s+of\s+|a\s+night'?s\s+|your\s+|any\s+)?(?:sleep|sleeping)\b"
        ), "plain"),
    (_c(r"\b(?:go|going|stay|staying|spend|spending|last|"
        r"get\s+through)\s+(?:[\w-]+\s+){0,4}?without\s+(?:any\s+)?"
        r"(?:sleep|sleeping|food|eating|a\s+meal|meals)\b"), "plain"),
    (_c(r"\bsleep\s+(?:only|no\s+more\s+than|less\s+than|under|at\s+most|just|a\s+maximum\s+of|"
        r"for\s+only)\s+"
        r"(?:\d|one|two|three|four)(?:\s*-\s*\d)?\s*(?:hours?|hrs?)\b"), "plain"),
    (_c(r"\b(?:don'?t|do\s+not|never)\s+(?:go\s+to\s+|let\s+yourself\s+)?sleep\s+(?:for|until|"
        r"at\s+all|tonight)\b"), "plain"),
    (_c(r"\b(?:use|try|practi[sc]e|do)\s+(?:\w+\s+){0,2}?sleep\s+deprivation\b"), "plain"),
]

# Extreme cold: an icy stimulus together with a marker of extremity in one sentence.
_COLD = _c(r"\b(?:ice[- ]?(?:cold\s+)?bath|ice\s+water|icy\s+(?:water|lake|river|sea)|"
    r"freezing(?:[- ]cold)?\s+(?:water|lake|river|sea|shower|bath)|"
           r"frozen\s+(?:lake|river|pond)|ice[- ]cold\s+(?:water|shower|bath|lake|river)|"
           r"cold(?:[- ]water)?\s+(?:plunge|immersion|shower|bath|water)|"
           r"ice\s+cubes?|snow|(?:bath|tub|water)\s+(?:with|full\s+of)\s+ice)\b")
_COLD_EXTREME = _c(r"\buntil\s+(?:you\s+|your\s+(?:body|skin|hands|feet|face|fingers|"
    r"lips)\s+)?(?:go\s+|goes\s+|become\s+|becomes\s+|turn\s+|turns\s+|"
                   r"are\s+|is\s+|feel\s+|can'?t\s+|start\s+(?:to\s+)?)?(?:completely\s+)?(?:numb|"
                   r"blue|shiver|shivering|hurt|hurts|pain|painful|burn|burns|"
                   r"unbearable|feel|pass\s+out|faint|stop\s+shaking|shake|shaking|bleed)\b|"
                   r"\bfor\s+(?:at\s+least\s+|over\s+|more\s+than\s+)?(?:\d{2,}|ten|fifteen|twenty|"
                   r"thirty|forty|sixty|an|one|two|several|half\s+an)\s+(?:minutes|hours?)\b|"
                   r"\bas\s+long\s+as\s+(?:you\s+)?(?:possibly\s+)?can\b|"
                   r"\b(?:submerge|immerse|plunge|dunk)\s+(?:your\s+(?:whole\s+|entire\s+)?body|"
                   r"yourself|your\s+head)\b|"
                   r"\b(?:jump|dive)\s+into\s+(?:a|the)\s+(?:frozen|icy)\b")

_ALC_COPING: list[_Rule] = [
    (_c(r"\b(?:have|drink|take|pour(?:\s+yourself)?|grab|down|knock\s+back|sip|try|enjoy|having|"
        r"drinking|pouring)\s+"
        r"(?:a\s+|an\s+|some\s+|a\s+few\s+|a\s+couple(?:\s+of)?\s+|two\s+|three\s+|"
        r"one\s+or\s+two\s+|a\s+quick\s+|a\s+stiff\s+|a\s+big\s+|a\s+strong\s+)?"
        r"(?:glass(?:es)?\s+of\s+|shots?\s+of\s+|bottle\s+of\s+|pint\s+of\s+|can\s+of\s+)?"
        r"(?:alcohol|wine|beer|beers|liquor|vodka|whiske?y|gin|rum|tequila|booze|shots|cocktails?|"
        r"nightcap|brandy|bourbon|cider|"
        r"champagne|prosecco|margaritas?|martinis?|drinks|drink)\b"
        r"(?!\s+(?:of\s+)?(?:water|tea|juice|milk|coffee|cocoa))"), "plain"),
    (_c(r"\bdrink\s+(?:to|until|so)\s+(?:cope|forget|relax|calm|numb|feel\s+(?:better|nothing|"
        r"numb)|get\s+through|unwind|sleep|"
        r"loosen|you(?:'re|\s+are)\s+(?:drunk|numb|tipsy))\b"), "plain"),
    (_c(r"\bget\s+(?:drunk|high|wasted|tipsy|buzzed|stoned|hammered|blackout)\b"), "plain"),
    (_c(r"\b(?:use|using|turn\s+to|rely\s+on|lean\s+on)\s+(?:alcohol|drugs|weed|cannabis|marijuana|"
        r"pot|booze|a\s+drink|drinking)\s+"
        r"(?:to|as|when|for)\b"), "plain"),
    (_c(r"\b(?:smoke|smoking|vape|vaping)\s+(?:a\s+|some\s+)?(?:joint|weed|pot|marijuana|cannabis|"
        r"bowl|blunt)\b"), "plain"),
    (_c(r"\b(?:take|taking|try|trying|use|using|do|doing)\s+(?:an?\s+|some\s+)?(?:edibles?|gummy|"
        r"gummies|weed|drugs|mdma|molly|ecstasy|lsd|acid|"
        r"mushrooms|shrooms|psilocybin|ketamine|cocaine|coke|speed|meth|poppers)\b"), "plain"),
    (_c(r"\b(?:take|taking|have|having|do|smoke|smoking|vape|vaping|use|using|try|"
        r"trying)\s+(?:a\s+|an\s+|some\s+|a\s+few\s+)?"
        r"(?:(?:hits?|puffs?|drags?|tokes?|bit|little|dose)\s+)?(?:(?:of|from|on)\s+)?(?:(?:a|an|"
        r"the|your|some)\s+)?(?:vape\s+pen\s+of\s+|pen\s+of\s+)?"
        r"(?:thc|weed|cannabis|marijuana|pot|joint|blunt|bong|edibles?|mdma|cocaine|ketamine|"
        r"psilocybin|shrooms|vape\s+pen)\b"), "plain"),
    (_c(r"\bliquid\s+courage\b"), "plain"),
    (_c(r"\b(?:alcohol|a\s+drink|a\s+glass\s+of\s+wine|wine|beer|a\s+beer|weed|cannabis|marijuana|"
        r"a\s+joint|drinking|drugs)\s+"
        r"(?:can|will|may|might|really|usually|often|always)?\s*(?:helps?|calms?|relax(?:es)?|"
        r"takes?\s+the\s+edge\s+off|works|eases?|soothes?|"
        r"is\s+(?:a\s+)?(?:good|great|fine|healthy|helpful|useful|perfect)|steadies?)\b"), "stmt"),
]

_DISCOURAGES: list[_Rule] = [
    (_c(r"\byou\s+(?:really\s+|honestly\s+|definitely\s+|probably\s+|certainly\s+)?(?:don'?t|"
        r"do\s+not|won'?t|will\s+not|shouldn'?t|should\s+not|"
        r"no\s+longer)\s+(?:really\s+|ever\s+|even\s+)?(?:need|require|have\s+to\s+(?:see|go\s+to|"
        r"call|talk\s+to|bother\s+with))\s+"
        r"(?:to\s+(?:see|call|talk\s+to|go\s+to|bother\s+with|contact|involve)\s+)?(?:a\s+|an\s+|"
        r"any\s+|your\s+|the\s+|more\s+)?"
        r"(?:therapists?|therapy|counsel(?:l)?ors?|counsel(?:l)?ing|doctors?|psychiatrists?|"
        r"psychologists?|professionals?|professional\s+help|"
        r"outside\s+help|treatment|clinicians?|gps?|crisis\s+lines?|hotlines?|anyone(?!'s)|"
        r"anybody(?!'s)|help\s+from\s+(?:anyone|others|a\s+professional)|"
        r"other\s+people|support\s+groups?)\b"), "plain"),
    (_c(r"\b(?:there'?s\s+|there\s+is\s+)?no\s+(?:need|reason)\s+(?:for|to\s+(?:see|call|contact|"
        r"involve|tell|talk\s+to|consult|go\s+to|bother|visit))\s+"
        r"(?:a\s+|an\s+|any\s+|your\s+|the\s+)?(?:"
        + _HELP_NOUN + r"|anyone|anybody|professional\s+help)\b"), "plain"),
    (_c(r"\b(?:don'?t|do\s+not|never)\s+(?:ever\s+)?(?:tell|talk\s+to|confide\s+in|"
        r"mention\s+(?:this|it)\s+to|share\s+(?:this|it|these\s+\w+|your\s+\w+)\s+with|"
        r"mention\s+(?:any\s+of\s+this|anything|that|these\s+\w+|your\s+\w+)\s+to|"
        r"bother|involve|call|contact|text|reach\s+out\s+to|go\s+to|see|ask)\s+(?:anyone|anybody|"
        r"others|other\s+people|people|"
        r"your\s+(?:family|friends?|parents?|partner|spouse|husband|wife|doctor|therapist|"
        r"counsel(?:l)?or|psychiatrist|gp|teacher|school|"
        r"clinician|care\s+team|support\s+network|loved\s+ones)|(?:a|the)\s+(?:therapist|doctor|"
        r"crisis\s+line|hotline|helpline|"
        r"emergency\s+room|er|hospital|police|professional)|988|911|999|112|the\s+er)\b"
        r"(?!\s+(?:unless|except|who|until|if|to\s+make)\b)"), "plain"),
    (_c(r"\b(?:don'?t|do\s+not|never)\s+let\s+(?:anyone|anybody|others|people|"
        r"your\s+\w+)\s+(?:know|see|find\s+out)\b"), "plain"),
    (_c(r"\b(?:don'?t|do\s+not|never)\s+(?:bother|"
        r"waste\s+(?:your\s+)?time)\s+(?:with\s+)?(?:calling|seeing|talking\s+to|"
        r"asking\s+for\s+help|seeking\s+help|"
        r"reaching\s+out|getting\s+help|with\s+therapy|therapy|a\s+therapist|a\s+doctor)\b"
        ), "plain"),
    (_c(r"\bkeep\s+(?:this|it|these\s+\w+|your\s+(?:feelings|thoughts|symptoms|struggles|"
        r"self[- ]harm|cutting|urges|pain|plans?)|everything)\s+"
        r"(?:a\s+|completely\s+|totally\s+)?(?:secret|to\s+yourself|hidden|between\s+us|"
        r"from\s+(?:everyone|your\s+(?:doctor|therapist|family)))\b"), "plain"),
    (_c(r"\b(?:no\s+one|nobody)\s+(?:else\s+)?(?:needs|has|should|must|"
        r"ever\s+needs)\s+to\s+(?:know|find\s+out|hear)\b"), "plain"),
    (_c(r"\bkeep\s+(?:this|it|these\s+\w+|your\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:a\s+|"
        r"completely\s+)?secret\s+from\b"), "plain"),
    (_c(r"\b(?:only\s+)?(?:weak|pathetic|broken|crazy|fragile)\s+people\s+(?:need|go\s+to|see|use|"
        r"ask\s+for|seek)\s+(?:a\s+|an\s+)?"
        r"(?:" + _HELP_NOUN + r"|help|counsel(?:l)?ing)\b"), "plain"),
    (_c(r"\b(?:there(?:'s|\s+is)\s+)?no\s+(?:point|use|sense)\s+(?:in\s+)?(?:seeing|calling|"
        r"talking\s+to|going\s+to|asking|getting|contacting|"
        r"booking|visiting|trying)\s+(?:a\s+|an\s+|the\s+|your\s+|any\s+)?(?:"
        + _HELP_NOUN + r"|help|counsel(?:l)?ing)\b"), "plain"),
    (_c(r"\b(?:keep|keeping|hide|hiding)\s+(?:it|this|everything|how\s+you\s+feel|"
        r"your\s+[\w-]+(?:\s+[\w-]+)?)\s+(?:secret\s+|hidden\s+)?from\s+"
        r"(?:your\s+)?(?:" + _CLINICIAN + r"|" + _HELP_NOUN + r"|family|friends|partner|parents|"
            r"everyone|others|people|loved\s+ones)\b"), "plain"),
    (_c(r"\b(?:hide|hiding)\s+(?:it|this|how\s+you\s+feel|your\s+(?:feelings|symptoms|struggles|"
        r"pain|thoughts|distress|diagnosis|condition|urges))\s+"
        r"from\s+(?:everyone|others|people|your\s+(?:doctor|therapist|family|friends|partner|"
        r"parents|care\s+team))\b"), "plain"),
    (_c(r"\b(?:stop|quit|cancel|skip|drop\s+out\s+of|give\s+up(?:\s+on)?|end|leave|"
        r"walk\s+away\s+from|ditch|avoid|stay\s+away\s+from|steer\s+clear\s+of|"
        r"stopping|quitting|cancelling|canceling|skipping|dropping\s+out\s+of|"
        r"avoiding)\s+(?:seeing\s+|going\s+to\s+|attending\s+|talking\s+to\s+|"
        r"booking\s+|scheduling\s+|making\s+|calling\s+|using\s+|paying\s+for\s+|"
        r"your\s+|the\s+|all\s+|any\s+|those\s+|with\s+|next\s+|upcoming\s+|regular\s+|weekly\s+|"
        r"monthly\s+|follow-up\s+|remaining\s+)*(?:therapists?|therapy|counsel(?:l)?ors?|"
        r"counsel(?:l)?ing|psychiatrists?|psychologists?|"
        r"doctors?|gps?|therapy\s+sessions?|sessions|appointments?\s+with\s+\w+|(?:therapy|"
        r"doctor'?s?|medical|psychiatr\w+)\s+appointments?|"
        r"support\s+groups?|treatment|care\s+team|clinicians?|hospitals?|emergency\s+rooms?|"
        + _HELP_NOUN + r")\b"), "plain"),
    (_c(r"\bwithout\s+(?:telling|asking|informing|talking\s+to|checking\s+with|consulting|"
        r"involving|letting|going\s+to|seeing|calling|"
        r"getting|seeking)\s+(?:your\s+|a\s+|an\s+|the\s+|any\s+)?(?:"
        + _CLINICIAN + r"s?|" + _HELP_NOUN + r"|anyone|anybody|family|friends|"
        r"professional\s+help|help)\b"), "plain"),
    (_c(r"\b(?:manage|cope|do|get\s+by|go\s+on|carry\s+on|"
        r"recover)\s+(?:just\s+)?(?:fine\s+)?without\s+(?:a\s+|an\s+|your\s+|any\s+)?"
        r"(?:" + _HELP_NOUN + r"|professional\s+help|help)\b"), "plain"),
    (_c(r"\b(?:therapists?|counsel(?:l)?ors?|psychiatrists?|psychologists?|doctors?|shrinks?|"
        r"therapy)\s+(?:is|are)\s+(?:only|just)\s+"
        r"(?:after|in\s+it\s+for|about|interested\s+in)\s+(?:your\s+|the\s+)?money\b"), "plain"),
    (_c(r"\b(?:handle|handling|deal\s+with|dealing\s+with|cope\s+with|coping\s+with|manage|"
        r"managing|face|facing|get\s+through|getting\s+through|"
        r"fix|fixing|solve|work\s+through|go\s+through|going\s+through|tackle|carry|suffer|"
        r"suffering|struggle|struggling)\s+"
        r"(?:(?:it|this|that|things|everything|these\s+\w+|your\s+(?:feelings|problems|pain|"
        r"anxiety|depression|thoughts|struggles|crisis|"
        r"urges|emotions|mental\s+health|symptoms))\s+)?(?:all\s+|completely\s+|entirely\s+)?"
        r"(?:alone|in\s+silence|without\s+(?:any\s+)?(?:help|support|anyone|telling\s+anyone|"
        r"professional\s+help|a\s+therapist|therapy|"
        r"outside\s+help|involving\s+anyone|bothering\s+anyone))\b"), "plain"),
    (_c(r"\b(?:you\s+(?:should|must|need\s+to|have\s+to|ought\s+to)|it'?s\s+(?:best|better)\s+to|"
        r"always|just|try\s+to)\s+"
        r"(?:handle|deal\s+with|cope\s+with|manage|face|get\s+through|fix|solve|sort\s+out|"
        r"work\s+through|tackle)\s+"
        r"(?:\w+\s+){0,3}?(?:on\s+your\s+own|by\s+yourself)\b"), "plain"),
    (_c(r"\b(?:asking\s+for\s+(?:professional\s+)?help|seeking\s+(?:professional\s+)?help|"
        r"getting\s+(?:professional\s+)?help|needing\s+help|reaching\s+out|therapy|"
        r"going\s+to\s+therapy|"
        r"seeing\s+a\s+(?:therapist|psychiatrist|counsel(?:l)?or)|talking\s+to\s+a\s+(?:therapist|"
        r"professional))\s+"
        r"(?:is|means\s+you(?:'re|\s+are)|makes\s+you|shows\s+you(?:'re|\s+are)|(?:will|would|"
        r"can)\s+(?:only\s+|just\s+)?make\s+you)\s+"
        r"(?:just\s+|only\s+|really\s+|more\s+)?(?:a\s+sign\s+of\s+|for\s+)?"
        r"(?:weak|weaker|weakness|dependent|worse|the\s+weak|pathetic|a\s+failure|failure|"
        r"a\s+waste(?:\s+of\s+\w+)?|useless|pointless|unnecessary|embarrassing|"
        r"shameful|losers|overrated|a\s+scam|attention[- ]seeking)\b"), "stmt"),
    (_c(r"\b(?:therapists?|therapy|doctors?|psychiatrists?|psychologists?|counsel(?:l)?ors?|"
        r"professionals?|hotlines?|crisis\s+lines?|"
        r"the\s+er|hospitals?)\s+(?:can'?t|cannot|won'?t|will\s+not|don'?t|do\s+not|never|"
        r"rarely)\s+(?:really\s+|actually\s+|ever\s+|even\s+)?"
        r"(?:help|understand|work|care)\b"), "plain"),
    (_c(r"\b(?:no\s+one|nobody)\s+(?:else\s+)?(?:can|will|could)\s+(?:ever\s+|really\s+)?(?:help|"
        r"understand)\s+you\b"), "plain"),
    (_c(r"\b(?:instead\s+of|rather\s+than)\s+(?:calling|contacting|seeing|talking\s+to|going\s+to|"
        r"texting|reaching\s+out\s+to|asking|"
        r"visiting|getting|seeking|telling|booking|burdening|bothering|troubling|involving|"
        r"relying\s+on|depending\s+on|"
        r"leaning\s+on|wasting\s+the\s+time\s+of|waking|disturbing|worrying)\s+(?:a\s+|an\s+|"
        r"the\s+|your\s+|any\s+)?(?:" + _HELP_NOUN + r"|help|someone|anyone|"
        r"a\s+friend|family|partner|friends|loved\s+ones|people)\b"), "plain"),
    (_c(r"\b(?:this|the)\s+(?:exercise|worksheet|app|program|programme|technique|workbook|practice|"
        r"tool|protocol|skill)\s+"
        r"(?:is\s+all\s+(?:the\s+help\s+)?you\s+(?:need|will\s+ever\s+need)|replaces|can\s+replace|"
        r"will\s+replace|is\s+a\s+(?:replacement|substitute)\s+for|"
        r"means\s+you\s+(?:don'?t|won'?t)\s+need)\b"), "plain"),
    (_c(r"\b(?:doctors?|psychiatrists?|therapists?)\s+(?:just|only)\s+(?:want\s+to\s+)?(?:push|"
        r"sell|drug|medicate|want\s+your\s+money)\b"), "plain"),
]
