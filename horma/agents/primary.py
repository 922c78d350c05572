"""The primary agent ``M_theta``: answers from the retrieved context and nothing else.

``pi(a|o,F,q) = M_r(C|F,q) * M_theta(a|o,C,q)``: the answer model never sees
the workspace, only ``C``, so what it spends (input tokens) and what it can
know are both bounded by the retriever's selection.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from horma.context import Context
from horma.llm.accounting import Cost, Meter
from horma.prompts import render_prompt


@dataclass
class Answer:
    question: str
    text: str
    context: Context
    cost: Cost = field(default_factory=Cost)  # the whole ask: the context's recall plus the answer's call

    def as_dict(self) -> dict:
        return {"question": self.question, "answer": self.text, "cost": self.cost.as_dict(),
                "context": self.context.as_dict()}


def answer(llm, question: str, context: Context) -> Answer:
    """One plain completion over ``prompts/primary.md.j2`` with the context's text."""
    prompt = render_prompt("primary", question=question, context=context.text)
    meter = Meter(llm)
    reply = llm.complete("", [{"role": "user", "content": prompt}])
    cost = meter.cost()
    recalled = getattr(context, "cost", None)  # a Recall carries what building the context cost
    return Answer(question, reply.text.strip(), context, recalled + cost if isinstance(recalled, Cost) else cost)
