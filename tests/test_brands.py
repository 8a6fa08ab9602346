"""Brand profiles: samples on first use, validation with field-level errors, edits."""

from __future__ import annotations

import pytest

from engine.errors import InvalidInput, NotFound
from engine.pipelines.campaign.brands import create_brand, get_brand, list_brands, update_brand


def test_sample_brands_load_on_first_use(db_url: str) -> None:
    brands = list_brands()
    assert [b.name for b in brands] == ["Alma Cafe", "Lumen Skin", "Stride Lab"]
    assert all(b.sample and b.voice and b.avoid_claims for b in brands)
    assert len(list_brands()) == 3  # not loaded twice


def test_create_with_lists_from_form_text(db_url: str) -> None:
    b = create_brand(data={
        "name": "  Kettle & Crumb ", "website": "kettlecrumb.com",
        "social_links": "@kettlecrumb\nhttps://instagram.com/kettlecrumb\n\n@kettlecrumb",
        "products": "scones, tea", "avoid_words": "cheap\n", "avoid_claims": ""}, actor="mia")
    assert b.name == "Kettle & Crumb" and b.slug == "kettle-crumb"
    assert b.website == "https://kettlecrumb.com"
    assert b.social_links == ["@kettlecrumb", "https://instagram.com/kettlecrumb"]
    assert b.products == ["scones", "tea"] and b.avoid_words == ["cheap"] and b.avoid_claims == []
    assert get_brand(b.id).name == "Kettle & Crumb"


@pytest.mark.parametrize(("data", "field", "words"), [
    ({"name": "  "}, "name", "is required"),
    ({"name": "X", "website": "not a url"}, "website", "must be a web address"),
    ({"name": "X", "website": "ftp://files.example.com"}, "website", "must be a web address"),
    ({"name": "X", "website": "https://localhost"}, "website", "must be a web address"),
    ({"name": "X", "social_links": "@ok\nhello world"}, "social_links", "line 2"),
    ({"name": "x" * 121}, "name", "at most 120"),
])
def test_bad_profiles_get_field_level_errors(db_url: str, data: dict, field: str,
                                             words: str) -> None:
    with pytest.raises(InvalidInput) as exc:
        create_brand(data=data)
    assert field in exc.value.fields
    assert words in exc.value.fields[field]


def test_names_are_unique_and_edits_replace_fields(db_url: str) -> None:
    alma = next(b for b in list_brands() if b.name == "Alma Cafe")
    with pytest.raises(InvalidInput) as exc:
        create_brand(data={"name": "alma cafe"})
    assert exc.value.fields == {"name": "is already used by another brand"}
    data = alma.model_dump(include=set(type(alma).model_fields) - {"id", "slug", "sample",
                                                                    "created_at", "updated_at"})
    data["avoid_words"] = alma.avoid_words + ["fancy"]
    updated = update_brand(brand_id=alma.id, data=data)
    assert "fancy" in updated.avoid_words and updated.updated_at >= alma.updated_at
    with pytest.raises(InvalidInput):
        update_brand(brand_id=alma.id, data=data | {"name": "Stride Lab"})
    with pytest.raises(NotFound):
        update_brand(brand_id=999, data=data)
