"""Training the retriever: navigator traces -> SFT warm start -> GRPO on the evidence-Jaccard reward.

``export`` turns LoCoMo questions into chat transcripts of the zero-LLM
navigator (SFT) and into tasks (GRPO); ``reward`` is the paper's
``J(C, E)``; ``sft`` and ``grpo`` wrap TRL's trainers; ``environment`` runs a
policy model's episodes through the LLM retriever itself. Needs the
``train`` extra (torch, transformers, trl, peft, datasets, gguf).
"""
