"""The campaign pipeline (Creo + Workforce). Read spec.py first: the four stages as data.
models.py holds its input and each stage's output, text.py their Markdown form, tasks.py what
a model is told, critics.py the Evaluator, context.py what a stage is given from the
database; brands, creators, channels, outreach and compliance are the campaign's domain.
The offline agents are a backend: engine/llm/offline/campaign/."""
