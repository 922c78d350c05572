"""The primary agent ``M_theta``: answers from the retrieved context and nothing else.

``pi(a|o,F,q) = M_r(C|F,q) * M_theta(a|o,C,q)``: the answer model never sees
the workspace, only ``C``, so what it spends (input tokens) and what it can
know are both bounded by the retriever's selection.
"""

from __future__ import annotations

from typing import Any

from pydantic import AliasChoices, BaseModel, Field, field_serializer

from horma.context import Context, Recall
from horma.llm.accounting import Cost, Meter
from horma.prompts import render_prompt


class Answer(BaseModel):
    """The primary agent's answer (``answer`` in JSON), the context it read, and what the whole ask cost."""

    question: str
    text: str = Field(validation_alias=AliasChoices("answer", "text"), serialization_alias="answer")
    cost: Cost = Field(default_factory=Cost)  # the whole ask: the context's recall plus the answer's call
    context: Recall

    @field_serializer("cost")
    def _cost(self, cost: Cost) -> dict[str, Any]:
        return cost.as_dict()

    def as_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json", by_alias=True)


def answer(llm: Any, question: str, context: Recall | Context) -> Answer:
    """One plain completion over ``prompts/primary.md.j2`` with the context's text.

    A :class:`Recall` carries what building it cost, which the answer's cost
    includes; a bare :class:`Context` (built by hand) cost nothing to recall.
    """
    recalled = context if isinstance(context, Recall) else context.result()
    prompt = render_prompt("primary", question=question, context=recalled.text)
    meter = Meter(llm)
    reply = llm.complete("", [{"role": "user", "content": prompt}])
    return Answer(question=question, text=reply.text.strip(), context=recalled, cost=recalled.cost + meter.cost())
