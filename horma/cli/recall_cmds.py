"""`horma recall` and `horma ask`: read a memory, the context alone or with the primary agent's answer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import typer

from horma.agents.retriever import Recall, check_query
from horma.cli.common import console, err_console, plain, plural, shown
from horma.cli.options import (
    BACKEND_OPT,
    BUDGET_OPT,
    CONFIG_OPT,
    JSON_OPT,
    LLM_OPT,
    RETRIEVER_OPT,
    UNSAFE_OPT,
)
from horma.cli.run_setup import Setup, check_policy, setup
from horma.llm.accounting import Cost
from horma.memory import Memory
from horma.workspace import Workspace

NO_LLM = ("no LLM available ({reason}); pass --llm SPEC or set the provider's key for an answer; "
          "showing the context only")


def register(app: typer.Typer) -> None:
    app.command("recall")(recall)
    app.command("ask")(ask)


def print_context(ctx: Recall) -> None:
    """Each selected piece under a rule naming its file, lines and source units."""
    if not ctx.items:
        console.print("[dim](nothing selected)[/]")
    for item in ctx.items:
        refs = ", ".join(item.refs[:12]) + (" ..." if len(item.refs) > 12 else "")
        console.rule(f"[bold]{shown(item.path or '-')}:{item.start}-{item.end}[/] [dim]{item.tokens} tokens"
                     f"{' · ' + shown(refs) if refs else ''}[/]", align="left")
        console.print(plain(item.text), markup=False, highlight=False)
    console.print(
        f"[dim]{ctx.tokens}/{ctx.budget} tokens · {plural(len(ctx.refs), 'source unit')} · {plural(ctx.steps, 'step')}"
        f" · {plural(ctx.cost.llm_calls, 'LLM call')} · {plural(ctx.cost.sandbox_commands, 'sandbox command')} · "
        f"{ctx.cost.wall_ms:.0f} ms{_dollars(ctx.cost)} · stop {shown(ctx.stop)}{_faults(ctx.faults)} · trace "
        f"{shown(ctx.trace or '-')}[/]", highlight=False,
    )


def _dollars(cost: Cost) -> str:
    """`` · $0.0012`` when a priced model ran, else nothing."""
    return f" · ${cost.cost_usd:.4f}" if cost.llm_calls and cost.cost_usd is not None else ""


def _faults(faults: dict[str, int]) -> str:
    bad = ", ".join(f"{n} {kind}" for kind, n in faults.items() if n)
    return f" ({shown(bad)})" if bad else ""


@contextmanager
def _reader(workspace: Path, query: str, llm: str | None, run: Setup) -> Iterator[Memory]:
    check_query(query, run.settings.recall.budget)
    ws = Workspace.open(workspace)
    model = run.llm("retriever", llm) if check_policy("retriever", run) else None
    with Memory(ws, llm=model, settings=run.settings) as mem:
        yield mem


def recall(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    query: str = typer.Argument(..., help="What to look for."),
    budget: int | None = BUDGET_OPT,
    asked: str | None = typer.Option(None, "--asked", help="When the question is asked, YYYY-MM-DD (default "
                                                           "today): '10 days ago', 'last Saturday' count from it."),
    retriever: str | None = RETRIEVER_OPT,
    llm: str | None = LLM_OPT,
    backend: str | None = BACKEND_OPT,
    unsafe_local: bool = UNSAFE_OPT,
    config: Path | None = CONFIG_OPT,
    json_out: bool = JSON_OPT,
) -> None:
    """Build the context for QUERY within the budget and print it with its sources.

    The question's words, their meaning (sentence embeddings) and the dates it
    names, absolute or relative to --asked, pick the turns.

    Example: [bold]horma recall ./mem "When did Priya adopt her cat?" --budget 500[/]
    """
    run = setup(config, backend, unsafe_local, {"recall.budget": budget, "policies.retriever": retriever})
    with _reader(workspace, query, llm, run) as mem:
        ctx = mem.recall(query, asked=asked)
    if json_out:
        console.print_json(json.dumps(ctx.as_dict(), ensure_ascii=False))
        return
    print_context(ctx)


def ask(
    workspace: Path = typer.Argument(..., help="Workspace folder."),
    question: str = typer.Argument(..., help="The question to answer from memory."),
    llm: str | None = typer.Option(None, "--llm",
                                   help="Model spec for the answer (default: the config's models.primary)."),
    budget: int | None = BUDGET_OPT,
    retriever: str | None = RETRIEVER_OPT,
    backend: str | None = BACKEND_OPT,
    unsafe_local: bool = UNSAFE_OPT,
    config: Path | None = CONFIG_OPT,
    json_out: bool = JSON_OPT,
) -> None:
    """Recall, then let the primary agent answer from the context only.

    Without an LLM it says so in one line and shows the context.

    Example: [bold]horma ask ./mem "Where is Jun going in June?" --llm anthropic:claude-sonnet-5-5[/]
    """
    from horma.agents.primary import answer
    from horma.llm import LLMError

    run = setup(config, backend, unsafe_local, {"recall.budget": budget, "policies.retriever": retriever})
    check_query(question, run.settings.recall.budget)
    primary, no_llm = None, ""
    try:
        primary = run.llm("primary", llm)
    except LLMError as exc:
        if llm:  # the user named a model: a problem with it is an error, not a fallback
            raise
        no_llm = NO_LLM.format(reason=exc)
    with _reader(workspace, question, llm, run) as mem:
        ctx = mem.recall(question)
        reply = answer(primary, question, ctx) if primary is not None else None
    if json_out:
        out = reply.as_dict() if reply else {"question": question, "answer": None, "error": no_llm,
                                             "context": ctx.as_dict()}
        console.print_json(json.dumps(out, ensure_ascii=False))
        return
    if reply is None:
        err_console.print(f"[yellow]{shown(no_llm)}[/]", highlight=False)
        print_context(ctx)
        return
    print_context(ctx)
    console.print(f"[bold]answer:[/] {shown(reply.text)}  [dim](the whole ask: {reply.cost.input_tokens} in / "
                  f"{reply.cost.output_tokens} out tokens, {reply.cost.llm_calls} LLM calls{_dollars(reply.cost)})[/]",
                  highlight=False)
