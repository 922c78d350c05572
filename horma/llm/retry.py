"""Retries for transient provider faults: 429, 5xx, timeouts and dropped connections.

Exponential backoff with jitter (so many clients hit by one outage do not
retry in lockstep), a ``Retry-After`` header honoured up to the cap, and one
clear LLMError when the attempts run out. The SDKs' own retries are turned
off so this is the only policy and tests can make its delays tiny.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from horma.llm import LLMError

T = TypeVar("T")


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 4
    base_delay: float = 1.0
    max_delay: float = 30.0

    def delay(self, attempt: int, retry_after: float | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based): half fixed, half random."""
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_delay)
        d = min(self.max_delay, self.base_delay * 2**attempt)
        return d / 2 + random.uniform(0, d / 2)


def retry_after(response: Any) -> float | None:
    """The seconds an HTTP response's Retry-After header asks for, if it names a number."""
    try:
        return float(response.headers.get("retry-after"))
    except (TypeError, ValueError, AttributeError):
        return None


@dataclass
class Transient(Exception):
    """A fault worth retrying, as classified by a provider module."""

    reason: str
    retry_after: float | None = None


def with_retries(
    call: Callable[[], T],
    classify: Callable[[Exception], Transient | LLMError | None],
    policy: RetryPolicy,
    what: str,
    on_retry: Callable[[], None] | None = None,
) -> T:
    """Run ``call``; retry what ``classify`` calls transient, raise LLMError for the rest.

    ``classify`` returns a Transient (retry), an LLMError (give up with that
    message) or None (not a provider error: let it propagate).
    """
    attempt = 0
    while True:
        try:
            return call()
        except Exception as exc:
            verdict = classify(exc)
            if verdict is None:
                raise
            if isinstance(verdict, LLMError):
                raise verdict from exc
            if attempt >= policy.max_retries:
                raise LLMError(
                    f"{what}: {verdict.reason}; gave up after {attempt + 1} attempts"
                ) from exc
            time.sleep(policy.delay(attempt, verdict.retry_after))
            attempt += 1
            if on_retry is not None:
                on_retry()
