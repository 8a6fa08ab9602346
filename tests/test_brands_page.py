"""The Brands page (AppTest): field-level errors, create, edit."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from engine.pipelines.campaign.brands import list_brands

PAGE = str(Path(__file__).resolve().parent.parent / "pages" / "brands.py")


def _page() -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=30)
    at.run()
    assert not at.exception, at.exception
    return at


def _errors(at: AppTest) -> list[str]:
    return [e.value for e in at.error]


def test_bad_profile_shows_errors_under_its_fields(db_url: str) -> None:
    at = _page()
    at.selectbox(key="brand_pick").set_value(0).run()
    at.text_input(key="b0_name").set_value("   ")
    at.text_input(key="b0_website").set_value("not a url")
    at.text_area(key="b0_social_links").set_value("@ok\nnot a link")
    at.button[-1].click().run()  # the form's submit button
    errors = _errors(at)
    assert "Name is required." in errors
    assert any(e.startswith("Website must be a web address such as https://example.com")
               for e in errors)
    assert any(e.startswith("Social links line 2") for e in errors)
    assert "Nothing was saved: fix the fields marked above." in errors
    assert len(list_brands()) == 3


def test_create_then_edit_a_brand(db_url: str) -> None:
    at = _page()
    at.selectbox(key="brand_pick").set_value(0).run()
    at.text_input(key="b0_name").set_value("Kettle & Crumb")
    at.text_input(key="b0_website").set_value("kettlecrumb.com")
    at.text_area(key="b0_avoid_words").set_value("cheap\nbudget")
    at.button[-1].click().run()
    assert not _errors(at), _errors(at)
    assert [s.value for s in at.success] == ["Created Kettle & Crumb."]
    new = next(b for b in list_brands() if b.name == "Kettle & Crumb")
    assert at.selectbox(key="brand_pick").value == new.id
    assert new.website == "https://kettlecrumb.com" and new.avoid_words == ["cheap", "budget"]

    at.text_input(key=f"b{new.id}_website").set_value("https://kettle crumb")
    at.button[-1].click().run()
    assert any(e.startswith("Website must be a web address") for e in _errors(at))
    at.text_input(key=f"b{new.id}_website").set_value("https://kettlecrumb.co.uk")
    at.button[-1].click().run()
    assert not _errors(at)
    assert next(b for b in list_brands() if b.id == new.id).website == "https://kettlecrumb.co.uk"


def test_a_duplicate_name_is_a_field_error(db_url: str) -> None:
    at = _page()
    at.selectbox(key="brand_pick").set_value(0).run()
    at.text_input(key="b0_name").set_value("alma cafe")
    at.button[-1].click().run()
    assert "Name is already used by another brand." in _errors(at)


def test_every_profile_field_has_a_widget() -> None:
    import ast

    from engine.pipelines.campaign.brands import BrandIn

    tree = ast.parse(Path(PAGE).read_text())
    fields = next(n for n in tree.body if isinstance(n, ast.AnnAssign)
                  and getattr(n.target, "id", "") == "FIELDS")
    names = {t.elts[0].value for t in fields.value.elts}  # type: ignore[union-attr, attr-defined]
    assert names == set(BrandIn.model_fields)
