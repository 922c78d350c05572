"""GRPO on the evidence-Jaccard reward: TRL's GRPOTrainer with rollouts that are real retrieval episodes.

TRL's own tool loop needs a chat template with tool calling (SmolLM2 has
none) and calls tools without state; a retrieval is stateful (a shell's
cwd, a context that grows). So generation goes through TRL's ``rollout_func``:
each prompt names a task, and the episode is the LLM retriever run by
:class:`~horma.train.environment.RetrievalEnvironment` with the policy
being trained as its ``hf`` model. The model's transcript (one token
sequence, its own tokens marked) becomes the completion; observations are
masked out of the loss (``env_mask``); the reward is the episode's
``J(C, E)`` (:mod:`horma.train.reward`).
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from horma.agents.loop import RunLimits
from horma.train.environment import Episode, RetrievalEnvironment, load_tasks
from horma.train.reward import Shaping


def train_grpo(tasks_path: str | Path, out: str | Path, *, model: str = "smollm2", steps: int = 10,
               num_generations: int = 2, prompts_per_step: int = 1, max_new_tokens: int = 64,
               episode_steps: int = 6, temperature: float = 1.0, learning_rate: float = 1e-6,
               lora: bool = False, shaping: Shaping = Shaping(), backend: str = "auto",
               allow_unsafe_local: bool = False,
               echo: Callable[[str], None] | None = print) -> list[dict]:
    """Train on the tasks of ``grpo.jsonl`` for ``steps`` steps; returns the per-step log (mean reward)."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from horma.llm.hf import HFLLM, load
    from horma.train.log import StepLog
    from horma.train.sft import _bf16, _cuda, lora_config, save_checkpoint

    tasks = {t.id: t for t in load_tasks(tasks_path)}
    out = Path(out)
    base, tokenizer = load(model)
    policy = HFLLM(model, loaded=(base, tokenizer), max_tokens=max_new_tokens, temperature=temperature)
    env = RetrievalEnvironment(backend=backend, limits=RunLimits(max_steps=episode_steps), shaping=shaping,
                               allow_unsafe_local=allow_unsafe_local)
    batch: list[Episode] = []

    def rollout(prompts: list[str], trainer) -> dict:
        policy.model = trainer.accelerator.unwrap_model(trainer.model)
        was_training = policy.model.training
        policy.model.eval()
        batch.clear()
        prompt_ids, completion_ids, env_mask = [], [], []
        try:
            for i, task_id in enumerate(prompts):
                policy.reset(weights_changed=i == 0)
                batch.append(env.run(tasks[task_id], policy))
                t = policy.transcript
                cut = t.prompt_length
                prompt_ids.append(t.ids[:cut])
                completion_ids.append(t.ids[cut:] or [tokenizer.eos_token_id])
                env_mask.append([int(g) for g in t.generated[cut:]] or [0])
        finally:
            policy.model.train(was_training)
        return {"prompt_ids": prompt_ids, "completion_ids": completion_ids, "logprobs": None,
                "env_mask": env_mask, "episode_reward": [e.reward for e in batch]}

    def episode_reward(prompts, completions, episode_reward, **_):  # TRL's reward signature
        return list(episode_reward)

    def batch_stats() -> dict:
        return {"valid": round(sum(e.valid for e in batch) / len(batch), 4) if batch else None,
                "episodes": [e.as_dict() for e in batch]}

    log = StepLog(out, echo, extra=batch_stats)
    dataset = Dataset.from_list([{"prompt": tid} for tid in tasks])
    try:
        with tempfile.TemporaryDirectory(prefix="horma-grpo-") as scratch:
            config = GRPOConfig(output_dir=scratch, max_steps=steps, learning_rate=learning_rate,
                                per_device_train_batch_size=num_generations * prompts_per_step,
                                num_generations=num_generations, max_completion_length=max_new_tokens,
                                temperature=temperature, beta=0.0, mask_truncated_completions=False,
                                logging_steps=1, save_strategy="no", report_to=[], use_cpu=not _cuda(), bf16=_bf16(),
                                fp16=False, dataloader_num_workers=0, seed=0, disable_tqdm=echo is None)
            trainer = GRPOTrainer(model=base, reward_funcs=[episode_reward], args=config, train_dataset=dataset,
                                  processing_class=tokenizer, rollout_func=rollout,
                                  peft_config=lora_config() if lora else None, callbacks=[log])
            trainer.train()
            save_checkpoint(trainer.model, tokenizer, out, {
                "method": "grpo", "base": model, "tasks": str(tasks_path), "steps": steps,
                "num_generations": num_generations, "prompts_per_step": prompts_per_step, "lora": lora,
                "max_new_tokens": max_new_tokens, "episode_steps": episode_steps, "temperature": temperature,
                "learning_rate": learning_rate, "shaping": shaping.__dict__})
    finally:
        env.close()
    return log.records
