"""Does the configured model exist on the configured server? Asked at start and on the
Settings page (GET /models), so a typo in OPENAI_MODEL is a clear sentence, not a failed run."""

from __future__ import annotations

from difflib import get_close_matches

import openai
from pydantic import BaseModel

from engine.config import settings
from engine.llm.openai_env import DEFAULT_MODEL


class ModelCheck(BaseModel):
    ok: bool | None
    """True: listed; False: the server answered and does not list it; None: could not tell."""
    message: str
    base_url: str
    model: str
    available: list[str] = []


def configured() -> bool:
    s = settings()
    has_server = bool(s.openai_api_key or s.openai_base_url)
    return s.backend == "openai" or (s.backend != "offline" and has_server)


def check_model(
    *, model: str | None = None, base_url: str | None = None, api_key: str | None = None,
    timeout: float = 5.0,
) -> ModelCheck:
    s = settings()
    model = model or s.openai_model or DEFAULT_MODEL
    base_url = base_url or s.openai_base_url
    key = api_key or s.openai_api_key or "not-needed"
    client = openai.OpenAI(api_key=key, base_url=base_url, timeout=timeout, max_retries=0)
    url = str(client.base_url).rstrip("/")
    try:
        names = sorted(m.id for m in client.models.list())
    except openai.AuthenticationError:
        return ModelCheck(ok=None, base_url=url, model=model,
                          message=f"The API key was rejected by {url}.")
    except openai.APIStatusError as e:
        # Some compatible servers have no /models: say so, and let the first call tell.
        return ModelCheck(ok=None, base_url=url, model=model,
                          message=f"{url} did not list its models (HTTP {e.status_code}); "
                                  f"model '{model}' is checked at its first call.")
    except openai.APIConnectionError as e:
        return ModelCheck(ok=None, base_url=url, model=model,
                          message=f"Could not reach {url} ({type(e).__name__}).")
    if model in names:
        return ModelCheck(ok=True, base_url=url, model=model, available=names,
                          message=f"Model '{model}' is served by {url}.")
    close = get_close_matches(model, names, n=3, cutoff=0.5)
    hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
    shown = ", ".join(names[:12]) + (" ..." if len(names) > 12 else "")
    return ModelCheck(ok=False, base_url=url, model=model, available=names,
                      message=f"Model '{model}' (OPENAI_MODEL) is not served by {url}.{hint} "
                              f"It serves: {shown or 'no models'}.")
