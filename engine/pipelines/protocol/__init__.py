"""The protocol pipeline (Cerina). Read spec.py first: the pipeline as data (stages, agents,
thresholds). models.py holds its input and outputs, text.py the draft's Markdown form,
critics.py the critics' prompts. The offline agents are a backend: engine/llm/offline/."""
