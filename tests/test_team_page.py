"""The Team page (AppTest) on the identity and approval-policy services: the first person
names themselves admin, an admin gives and takes roles and sets a policy, every change lands
in the trail with who made it, the last admin cannot be removed, and a person who is not an
admin sees the page read-only and is told so."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from engine import identity
from engine.approval_policy import get_policy
from engine.people import team_overview, what_roles_may_do
from engine.team_trail import recent_changes

APP = str(Path(__file__).resolve().parent.parent / "app.py")


def team(who: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state["reviewer"] = who
    at.run()
    at.switch_page("pages/team.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def give(at: AppTest, person: str, role: str) -> AppTest:
    at.text_input[0].set_value(person)
    at.selectbox[0].set_value(role)
    at.button(key="FormSubmitter:grant_role-Give role").click().run()
    assert not at.exception
    return at


def test_an_admin_gives_and_takes_roles_and_sets_policies_with_a_trail(db_url: str) -> None:
    at = team("Root")
    assert any("No roles are set up yet" in i.value for i in at.info)
    give(at, "Root", "admin")
    assert identity.roles_of("root") == {"admin"}
    give(at, "Dr.  Lee", "clinician")
    give(at, "Olu", "ops")
    assert any("Gave Olu the ops role" in s.value for s in at.success)
    people = {p.person: p.roles for p in team_overview().people}
    assert people == {"root": ["admin"], "dr. lee": ["clinician"], "olu": ["ops"]}
    shown = at.dataframe[0].value
    assert list(shown["Person"]) == ["dr. lee", "olu", "root"]

    at.radio(key="pol_n_protocol").set_value(2)
    at.button(key="FormSubmitter:policy_protocol-Save policy").click().run()
    assert get_policy("protocol").approvals == 2
    assert any("two people approve" in m.value for m in at.markdown)

    at.selectbox[1].set_value(("olu", "ops"))
    at.button(key="FormSubmitter:revoke_role-Take away").click().run()
    assert identity.roles_of("olu") == frozenset()
    at.selectbox[1].set_value(("root", "admin"))
    at.button(key="FormSubmitter:revoke_role-Take away").click().run()
    assert any("last admin" in e.value for e in at.error)
    assert identity.roles_of("root") == {"admin"}  # refused, nothing lost

    trail = [(c.action, c.person, c.role, c.actor) for c in recent_changes()]
    assert trail[:2] == [("revoke", "olu", "ops", "root"), ("policy", None, None, "root")]
    assert ("grant", "dr. lee", "clinician", "root") in trail and len(trail) == 5
    assert "two people" in recent_changes()[1].detail
    changes = at.dataframe[-1].value
    assert list(changes["Change"])[:2] == ["took away", "set policy"]


def test_someone_who_is_not_an_admin_sees_it_read_only(db_url: str) -> None:
    identity.grant(actor="root", person="root", role="admin")
    identity.grant(actor="root", person="dr. lee", role="clinician")
    at = team("Dr. Lee")
    assert any("Read-only" in w.value and "clinician" in w.value for w in at.warning)
    assert not at.get("form")  # no way to change anything
    assert not at.text_input or all(t.label != "Person" for t in at.text_input)
    assert "dr. lee" in list(at.dataframe[0].value["Person"])
    approve = next(r for r in what_roles_may_do(team_overview().policies)
                   if r["act"] == "approve")
    assert approve == {"act": "approve", "clinician": "protocols", "marketer": "campaigns",
                       "ops": "no", "admin": "all runs"}
