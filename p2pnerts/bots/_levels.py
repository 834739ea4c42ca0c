"""Bot levels 1-10, and policies by name: what the commands and the arena put at a seat.

A level is a policy, a reaction time and a thinking budget. The reaction time is how long
the player takes between two looks at the table (a look makes at most one move); it is
drawn afresh each time, uniformly from ``think`` to ``think + spread`` seconds. The budget
is the most its policy may take to decide, in milliseconds at the 99th percentile
(``python tools/bench.py bots`` measures each level against it). Levels 1-2 play the
simple bot, 3-4 the baseline, 5-10 the expert. Every one knows its own stock as a person
at the seat does, a card once it has seen it turned (`Sight`).

The paces are set in moves per second, the measure of how fast people play Nerts: about
0.25 for a beginner, 0.4 for a newcomer who has just read the rules, 1 for a practised
player, 2 for the quickest people. Levels 1-7 span that range; 8 and 9 are beyond any
person; level 10 looks again within milliseconds, so it plays as fast as the protocol
lets a seat play (one play in the air at a time). A bot makes a move at almost every
look, so its moves per second are close to one over its mean reaction time;
``python tools/pace.py`` measures them on simulated tables.

A seat's next look waits for its policy's decision, so thinking adds to a level's reaction
time: a level may think for at most a tenth of its mean reaction, and never more than 50
ms, which keeps its pace within a tenth of what it is set to. Level 10, whose pace is the
table's and not a person's, may think for 50 ms too: it still looks twice as often as level
9 does thinking for its 10 ms.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import os
import random
import statistics
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from p2pnerts.bots._baseline import BaselineBot
from p2pnerts.bots._expert import ExpertBot
from p2pnerts.bots._policy import Policy
from p2pnerts.bots._priority import PriorityBot
from p2pnerts.bots._simple import SimpleBot
from p2pnerts.bots._strong import StrongBot
from p2pnerts.driver import Pace
from p2pnerts.errors import UsageError, in_one_line

POLICIES: dict[str, Callable[[random.Random], Policy]] = {
    "simple": SimpleBot,
    "baseline": lambda _: BaselineBot(),
    "strong": lambda _: StrongBot(),
    "priority": lambda _: PriorityBot(),
    "expert": lambda _: ExpertBot(),
}
"""The built-in policies by name; each is made from a seeded generator (for tie-breaks)."""


@dataclass(frozen=True, slots=True)
class Reaction:
    """Seconds between two looks at the table: uniform from ``think`` to ``think + spread``."""

    think: float
    spread: float

    def sample(self, rng: random.Random) -> float:
        return self.think + rng.random() * self.spread

    @property
    def mean(self) -> float:
        return self.think + self.spread / 2

    @property
    def pace(self) -> Pace:
        """How a driver paces looks at the table at this reaction."""
        return Pace(self.think, self.spread)


@dataclass(frozen=True, slots=True)
class Level:
    """What a bot of one level plays like: its policy (a name in `POLICIES`) and pace."""

    number: int
    name: str
    policy: str
    reaction: Reaction
    budget_ms: float
    """The most its policy may take to decide, in milliseconds (99th percentile)."""

    def make(self, rng: random.Random) -> Policy:
        return POLICIES[self.policy](rng)

    @property
    def moves_per_second(self) -> float:
        """About how many moves a second a bot of this level makes (one a look)."""
        return 1 / self.reaction.mean

    @property
    def pace(self) -> Pace:
        """How a driver paces this level's looks at the table."""
        return self.reaction.pace

    def describe(self) -> str:
        return f"level {self.number} ({self.name}): {self.policy} policy, {self.looks}"

    @property
    def looks(self) -> str:
        """How often a bot of this level looks at the table, in words."""
        mean = self.reaction.mean
        return f"a look every {mean * 1000:.0f} ms" if mean < 1 else f"a look every {mean:.1f} s"


def _level(number: int, name: str, policy: str, moves_per_second: float, budget_ms: float) -> Level:
    return Level(number, name, policy, reaction_at(moves_per_second), budget_ms)


def reaction_at(moves_per_second: float) -> Reaction:
    """A reaction of ``moves_per_second`` looks a second on average: uniform from ``think``
    to twice that (with a mean of 1.5 times ``think``)."""
    think = 1 / (1.5 * moves_per_second)
    return Reaction(think, think)


LEVELS: tuple[Level, ...] = (
    _level(1, "beginner", "simple", 0.25, 50),
    _level(2, "newcomer", "simple", 0.4, 50),
    _level(3, "steady", "baseline", 0.6, 50),
    _level(4, "sharp", "baseline", 0.85, 50),
    _level(5, "club", "expert", 1.2, 50),
    _level(6, "expert", "expert", 1.6, 50),
    _level(7, "quickest people", "expert", 2.2, 45),
    _level(8, "beyond human", "expert", 4.0, 25),
    _level(9, "far beyond human", "expert", 10.0, 10),
    Level(10, "as fast as the table allows", "expert", Reaction(0.002, 0.002), 50),
)
"""The levels: each one's policy, the moves per second it is set to, and its thinking
budget in milliseconds a decision."""


NEWCOMER = 2
"""The level ``play`` seats by default: a person new to the game can hold their own."""


def level_help(default: int) -> str:
    """What ``--level`` means, for the commands' help: moves a second, against people's."""
    rates = ", ".join(f"{lv.number}: {lv.moves_per_second:.2g}" for lv in LEVELS[:-1])
    most = statistics.mode(lv.budget_ms for lv in LEVELS)
    others = ", ".join(f"{lv.number}: {lv.budget_ms:g}" for lv in LEVELS if lv.budget_ms != most)
    return (
        f"the bots' level 1-10 ({default}) in moves a second, {rates}, 10: as fast as "
        "the table allows; people play about 0.25 (beginners) to 2 (the quickest); each "
        f"thinks at most {most:g} ms a move (99th percentile), {others}"
    )


def level(number: int) -> Level:
    """Level ``number`` (1-10); raises ValueError for any other."""
    if not 1 <= number <= len(LEVELS):
        raise ValueError(f"bot levels are 1 to {len(LEVELS)}, not {number}")
    return LEVELS[number - 1]


def policy_name(spec: str) -> str:
    """What to call a bot that plays the policy ``spec`` at a table: a built-in's name, or
    the class's (``examples/eager.py:Eager`` is Eager)."""
    return spec.rpartition(":")[2] or spec


class PolicyError(UsageError, ValueError):
    """A policy named on the command line cannot be loaded or made."""


MAX_RATE = 1000.0
"""The most looks a second a policy named ``POLICY@N`` may be given."""


def paced(spec: str) -> tuple[str, Pace | None]:
    """A policy named with its pace, ``POLICY@N`` (N looks a second on average, drawn as a
    level's are), as the policy and that pace; any other name as it is, with no pace.

    Raises `PolicyError` for an ``@`` whose rate is not a number of looks a second."""
    policy, at, rate = spec.rpartition("@")
    if not at:
        return spec, None
    try:
        looks = float(rate)
    except ValueError:
        raise PolicyError(
            f"{spec!r}: after @ comes a pace in looks a second (strong@10), not {rate!r}"
        ) from None
    if not 0 < looks <= MAX_RATE:
        raise PolicyError(f"{spec!r}: a pace is above 0 and at most {MAX_RATE:g} looks a second")
    return policy, reaction_at(looks).pace


def level_named(spec: str) -> Level | None:
    """The level ``spec`` names as ``L1`` to ``L10`` (how the arena seats a level: its
    policy at its pace), or None."""
    number = spec[1:]
    if spec[:1] == "L" and number.isdigit() and 1 <= int(number) <= len(LEVELS):
        return LEVELS[int(number) - 1]
    return None


def load_policy(spec: str) -> Callable[[random.Random], Policy]:
    """A maker of the policy ``spec`` names: a built-in name, a level (``L1``-``L10``: its
    policy), ``package.module:Class``, or ``path/to/file.py:Class``.

    A class is called with a seeded `random.Random` if its constructor takes an
    argument, with none otherwise; what it makes must have a ``choose`` method.
    """
    if spec in POLICIES:
        return POLICIES[spec]
    named = level_named(spec)
    if named is not None:
        return named.make
    module_name, sep, attr = spec.rpartition(":")
    if not sep or not module_name or not attr:
        names = ", ".join(POLICIES)
        raise PolicyError(
            f"{spec!r} is neither a policy ({names}) nor package.module:Class nor file.py:Class"
        )
    module = _import(module_name)
    cls = getattr(module, attr, None)
    if cls is None or not callable(cls):
        raise PolicyError(f"{module_name!r} has no class {attr!r}")
    if isinstance(cls, type) and not callable(getattr(cls, "choose", None)):
        raise PolicyError(f"{spec} has no choose(view, seat) method")
    try:
        parameters = list(inspect.signature(cls).parameters.values())
    except (TypeError, ValueError):
        parameters = []
    takes_rng = bool(parameters)
    needed = [p.name for p in parameters if p.default is p.empty and p.kind in _NAMED]
    if len(needed) > 1:
        raise PolicyError(
            f"{spec} is made with one argument (a seeded random.Random) or none, but it needs "
            f"{len(needed)}: {', '.join(needed)}"
        )

    def make(rng: random.Random) -> Policy:
        try:
            policy = cls(rng) if takes_rng else cls()
        except Exception as exc:  # the author's constructor failed: say where
            raise PolicyError(f"{spec} could not be made: {_where(exc)}") from exc
        if not callable(getattr(policy, "choose", None)):
            raise PolicyError(f"{spec} has no choose(view, seat) method")
        return policy  # type: ignore[no-any-return]

    return make


_NAMED = (
    inspect.Parameter.POSITIONAL_ONLY,
    inspect.Parameter.POSITIONAL_OR_KEYWORD,
    inspect.Parameter.KEYWORD_ONLY,
)
"""The kinds of parameter a call must give (unless they have a default)."""


def _import(name: str) -> ModuleType:
    """The module ``name``: a dotted module name (found in the working directory too, as
    ``python -m`` finds it), or the path of a Python file."""
    try:
        if not name.endswith(".py"):
            return _from_here(name)
        path = Path(name)
        loader = importlib.util.spec_from_file_location(f"p2pnerts_policy_{path.stem}", path)
        if loader is None or loader.loader is None:
            raise ImportError(f"{name} is not a Python file")
        module = importlib.util.module_from_spec(loader)
        # Registered before it runs, as `import` does: a dataclass defined in it looks its
        # module up in sys.modules (to resolve `from __future__ import annotations`).
        sys.modules[loader.name] = module
        try:
            # The modules beside it can be imported, as when ``python file.py`` runs it: a
            # policy may keep its helpers in a module of their own.
            with _looking_in(str(path.resolve().parent)):
                loader.loader.exec_module(module)
        except BaseException:
            del sys.modules[loader.name]
            raise
        return module
    except (ImportError, OSError) as exc:
        raise PolicyError(f"cannot import {name!r}: {exc}") from exc
    except Exception as exc:  # the code's own error as it runs: a syntax error, a typo
        raise PolicyError(f"cannot import {name!r}: {_where(exc)}") from exc


def _from_here(name: str) -> ModuleType:
    """Import the dotted module ``name``, looking in the working directory first, as
    ``python -m`` does: the ``p2pnerts`` command's own path starts at its script's
    directory, where an author's ``mybots.cautious`` is not."""
    if "" in sys.path:
        return importlib.import_module(name)
    with _looking_in(os.getcwd()):
        return importlib.import_module(name)


@contextlib.contextmanager
def _looking_in(folder: str) -> Iterator[None]:
    """Imports look in ``folder`` first for a while; the path is left as it was."""
    if folder in sys.path:
        yield
        return
    sys.path.insert(0, folder)
    try:
        yield
    finally:
        sys.path.remove(folder)


def _where(exc: Exception) -> str:
    """An error in a policy's code, with the file and line its author needs."""
    if isinstance(exc, SyntaxError):
        file = Path(exc.filename or "?").name
        return f"{type(exc).__name__}: {exc.msg} ({file}, line {exc.lineno})"
    return in_one_line(exc)
