"""The safety screen on safe text the corpus was not written like (tools/safety_ood.py): the
sentences the offline drafter screens while drafting the coverage sets' requests (it drops what
is flagged, so a false alarm silently loses a step) and the clinicians' own requests and
comments. Session 9 lowered the threshold to 0.6 with these as its limit: 38 of 1,629 drafter
sentences and 23 of 925 clinicians' texts flagged (0.74: 18 and 10; 0.55: 104 and 31). Session
10 (threshold 0.5, FRAME_PENALTY 0.3, BARE_PENALTY 0.3, the drafter's current wording in the
corpus): 31 of 1,624 and 31 of 925. The ceilings allow a few more, so a change that flags style
on ordinary text fails here."""

from __future__ import annotations

import pytest

from engine.checks.safety import screen_protocol
from tools import safety_ood


@pytest.mark.slow
def test_the_screen_leaves_the_drafters_own_sentences_and_the_clinicians_words_alone():
    drafter = safety_ood._drafter_texts()
    clinicians = safety_ood._clinician_texts()
    assert len(drafter) > 1000 and len(clinicians) > 800
    flagged_drafter = [t for t in drafter if screen_protocol(t).flags]
    flagged_clinicians = [t for t in clinicians if screen_protocol(t).flags]
    print(f"\ndrafter {len(flagged_drafter)}/{len(drafter)}, "
          f"clinicians {len(flagged_clinicians)}/{len(clinicians)}")
    assert len(flagged_drafter) <= 36
    assert len(flagged_clinicians) <= 35
