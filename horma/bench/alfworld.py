"""ALFWorld through the real engines: TextWorld's PDDL environment with ALFWorld's rules.

A game folder holds either the official ``game.tw-pddl`` or, as the
project's own games in ``examples/alfworld/`` do, an ``initial_state.pddl``
and a ``traj_data.json``; the latter is turned into a game exactly as
``alfworld-generate`` does, with the PDDL domain and text grammar that ship
inside the ``alfworld`` wheel.

One episode = one task for the runner. The primary agent acts for up to
``max_steps`` steps; every step (action + observation) is recorded into the
memory method as one unit as it happens, and before every action the method
is asked for a context under the budget (the paper's 1950 / 2200 token
context limits). Two agents:

- ``llm``: the primary model picks one of the valid commands from the goal,
  the recalled context and the latest observation (``prompts/alfworld_act.md.j2``);
- ``expert``: follows the engine's expert plan (Fast Downward replanning on
  the true state), still recording and recalling through the method, so the
  wrapper, the recording and the token accounting are tested without a model.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from horma.bench.methods import make_method
from horma.core.text import count_tokens
from horma.errors import BadArgument, MissingExtra
from horma.workspace import Unit, slugify

if TYPE_CHECKING:
    from horma.bench.runner import RunSettings

TASK_TYPES = (
    "pick_and_place_simple",
    "look_at_obj_in_light",
    "pick_clean_then_place_in_recep",
    "pick_heat_then_place_in_recep",
    "pick_cool_then_place_in_recep",
    "pick_two_obj_and_place",
)
AGENTS = ("llm", "expert")
DEFAULT_BUDGET = 2200
EPISODE_START = dt.datetime(2024, 1, 1, 9, 0)  # a fixed clock: same episode, same memory
INSTALL_HINT = "ALFWorld needs the alfworld extra: pip install -e '.[alfworld]'"
_ACTION = re.compile(r"ACTION:\s*(.+)", re.I)


class AlfworldError(BadArgument, RuntimeError):
    """ALFWorld cannot run here or a game folder is unusable; worded for the user."""


@dataclass(frozen=True)
class Game:
    id: str
    path: str  # the game folder
    task_type: str


def find_games(root: str | Path, split: str | None = None, task_types: Sequence[str] = TASK_TYPES) -> list[Game]:
    """Game folders under ``root`` (official layout or the project's own), sorted by path.

    ``split`` keeps folders whose path contains it (``valid_unseen`` is the
    paper's 134 out-of-distribution games); movable-receptacle and sliced
    tasks are skipped, as ALFWorld itself does.
    """
    base = Path(root)
    if not base.is_dir():
        raise AlfworldError(f"{root}: no such folder of games")
    games = []
    for traj in sorted(base.rglob("traj_data.json")):
        folder = traj.parent
        rel = folder.relative_to(base).as_posix()
        if split and split not in rel:
            continue
        if "movable" in rel or "Sliced" in rel:
            continue
        if not ((folder / "game.tw-pddl").is_file() or (folder / "initial_state.pddl").is_file()):
            continue
        try:
            task_type = json.loads(traj.read_text(encoding="utf-8"))["task_type"]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise AlfworldError(f"{traj}: not a traj_data.json with a task_type ({exc})") from None
        if task_type in task_types:
            games.append(Game(id=rel if rel != "." else folder.name, path=str(folder), task_type=task_type))
    if not games:
        raise AlfworldError(f"{root}: no ALFWorld games found (folders with traj_data.json and "
                            "game.tw-pddl or initial_state.pddl)")
    return games


def _alfworld_data() -> Path:
    try:
        import alfworld
    except ImportError:
        raise MissingExtra(INSTALL_HINT) from None
    return Path(alfworld.__file__).parent / "data"


def game_data(game: Game) -> dict[str, Any]:
    """The TextWorld PDDL game: the official file, or one composed like ``alfworld-generate`` does."""
    folder = Path(game.path)
    official = folder / "game.tw-pddl"
    if official.is_file():
        return json.loads(official.read_text(encoding="utf-8"))
    from alfworld.agents.utils.misc import add_task_to_grammar

    data = _alfworld_data()
    traj = json.loads((folder / "traj_data.json").read_text(encoding="utf-8"))
    # ALFWorld draws the goal's wording from the global random generator: seed it by game, so a
    # game reads the same in every run (and a resumed run equals an uninterrupted one)
    saved = random.getstate()
    random.seed(game.id)
    try:
        grammar = add_task_to_grammar((data / "alfred.twl2").read_text(encoding="utf-8"), traj)
    finally:
        random.setstate(saved)
    return {
        "pddl_domain": (data / "alfred.pddl").read_text(encoding="utf-8"),
        "grammar": grammar,
        "pddl_problem": (folder / "initial_state.pddl").read_text(encoding="utf-8"),
        "solvable": True,
        "walkthrough": None,
    }


class GameEnv:
    """One game in the engine: ``reset`` gives the intro, ``step`` the feedback; names demangled."""

    def __init__(self, game: Game, expert: bool):
        try:
            import textworld
            from alfworld.agents.environment.alfred_tw_env import AlfredDemangler
            from textworld.envs import PddlEnv
        except ImportError:
            raise MissingExtra(INSTALL_HINT) from None
        infos = textworld.EnvInfos(admissible_commands=True, won=True, policy_commands=expert)
        self.env = AlfredDemangler(PddlEnv(infos))
        self.env.load(game_data(game))
        self.state: Any = None

    def reset(self) -> str:
        self.state = self.env.reset()
        return self.state.feedback.strip()

    def step(self, command: str) -> str:
        self.state, _, _ = self.env.step(command)
        return self.state.feedback.strip()

    @property
    def won(self) -> bool:
        return bool(self.state["won"])

    @property
    def commands(self) -> list[str]:
        return list(self.state["admissible_commands"])

    @property
    def expert_plan(self) -> list[str]:
        return list(self.state["policy_commands"] or [])

    def close(self) -> None:
        self.env.close()


def split_intro(intro: str) -> tuple[str, str]:
    """(goal, first observation) from the game's intro text."""
    body = intro.replace("-= Welcome to TextWorld, ALFRED! =-", "").strip()
    obs, _, task = body.partition("Your task is to:")
    return task.strip().rstrip(".") or body, obs.strip()


def parse_action(reply: str, commands: Sequence[str]) -> str:
    """The command an agent's reply names: an ``ACTION:`` line, else the reply's first line."""
    m = _ACTION.search(reply)
    text = (m.group(1) if m else reply.strip().splitlines()[0] if reply.strip() else "").strip().strip("`.\"'")
    for c in commands:
        if c.lower() == text.lower():
            return c
    return text


def step_time(n: int) -> str:
    return (EPISODE_START + dt.timedelta(minutes=n)).strftime("%Y-%m-%d %H:%M")


@dataclass(frozen=True)
class GameTask:
    """One episode as a runner task; the instance id is the game id."""

    id: str
    game: Game
    agent: str = "llm"

    def instance_ids(self) -> list[str]:
        return [self.id]

    def run(self, settings: RunSettings, todo: Sequence[str], emit: Callable[[dict], None]) -> None:
        if self.id in todo:
            emit(run_episode(self, settings))


def run_episode(task: GameTask, settings: RunSettings) -> dict:
    """Play one game; every step is recorded into the method, and recalled from before acting."""
    from horma.prompts import render_prompt

    if task.agent not in AGENTS:
        raise AlfworldError(f"unknown agent {task.agent!r}; choose one of {', '.join(AGENTS)}")
    workdir = settings.workdir / slugify(task.id, 80)
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    llm = settings.make_llm("primary", settings.llm) if task.agent == "llm" else None
    episode = GameEnv(task.game, expert=task.agent == "expert")
    actions: list[str] = []
    per_step_inputs: list[int] = []
    per_step_context: list[int] = []
    recall_ms: list[float] = []
    llm_calls = memory_input = 0
    try:
        goal, obs = split_intro(episode.reset())
        expert_steps = len(episode.expert_plan) if task.agent == "expert" else None
        with make_method(settings.method, workdir, settings.options) as method:
            method.record([Unit("step0", step_time(0), "env", f"Goal: {goal}. {obs}")], "step-0", step_time(0))
            for n in range(1, settings.max_steps + 1):
                got = method.recall(f"{goal}. Now: {obs}", settings.budget)
                llm_calls += got.cost.llm_calls
                memory_input += got.cost.input_tokens
                recall_ms.append(got.cost.wall_ms)
                per_step_context.append(got.tokens)
                prompt = render_prompt("alfworld_act", task=goal, context=got.text, observation=obs,
                                       commands=episode.commands)
                if llm is not None:
                    reply = llm.complete("", [{"role": "user", "content": prompt}])
                    action = parse_action(reply.text, episode.commands)
                    per_step_inputs.append(reply.usage.input_tokens + got.cost.input_tokens)
                else:
                    plan = episode.expert_plan
                    action = plan[0] if plan else "look"
                    per_step_inputs.append(count_tokens(prompt) + got.cost.input_tokens)
                obs = episode.step(action)
                actions.append(action)
                method.record([Unit(f"step{n}", step_time(n), "agent", f"> {action} | {obs}")], f"step-{n}",
                              step_time(n))
                if episode.won:
                    break
    finally:
        episode.close()
    return {
        "id": task.id,
        "category": task.game.task_type,
        "won": episode.won,
        "steps": len(actions),
        "expert_steps": expert_steps,
        "tokens_per_step": sum(per_step_inputs) / len(per_step_inputs) if per_step_inputs else 0.0,
        "context_tokens": sum(per_step_context) / len(per_step_context) if per_step_context else 0.0,
        "input_tokens": sum(per_step_inputs),
        "memory_input_tokens": memory_input,
        "llm_calls": llm_calls,
        "recall_ms": sum(recall_ms) / len(recall_ms) if recall_ms else 0.0,
        "actions": actions,
    }


def alfworld_tasks(games_dir: str, split: str | None = None, agent: str = "llm",
                   task_types: Sequence[str] = TASK_TYPES) -> list[GameTask]:
    if agent not in AGENTS:
        raise AlfworldError(f"unknown agent {agent!r}; choose one of {', '.join(AGENTS)}")
    return [GameTask(g.id, g, agent) for g in find_games(games_dir, split, task_types)]


def check_installed() -> None:
    """Fail early, with the extra to install, when the engines are missing."""
    _alfworld_data()
    try:
        import fast_downward  # noqa: F401
        import textworld  # noqa: F401
    except ImportError:
        raise MissingExtra(INSTALL_HINT) from None
