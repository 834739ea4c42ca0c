"""The command line's options, each defined once: the seat's, the table's, the screen's,
the fan-out's, and the argument types that check them as they are read."""

from __future__ import annotations

import argparse
import difflib
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn, TypeVar

from p2pnerts.bots import NEWCOMER, level_help
from p2pnerts.commands._locate import address_of
from p2pnerts.fanout import Where
from p2pnerts.logs import LOGS_KEPT
from p2pnerts.net import GONE_AFTER, IDLE_AFTER, Stall
from p2pnerts.protocol import NAME_MOST, name_fault, table_name_fault
from p2pnerts.rules import BadOptions, TieRule, teams_from_text
from p2pnerts.system import data_dir, login_name

N = TypeVar("N", int, float)
Options = argparse.ArgumentParser | argparse._ArgumentGroup
"""What options are added to: a parser, or a group of its options."""


class Parser(argparse.ArgumentParser):
    """A parser whose errors come first, in one line, with a short usage after it (the
    full one lists every option: ``--help`` shows it)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.mistaken: dict[str, str] = {}
        """Options another command has, or means otherwise, each with what to say instead."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message}\n{self.short_usage()}")

    def unrecognized(self, words: Sequence[str]) -> NoReturn:
        """Refuse words the command does not know, each option with the one meant where
        that is plain: ``--palyer (did you mean --player?)``."""
        told = [word + (f" ({hint})" if (hint := self._meant(word)) else "") for word in words]
        self.error(f"unrecognized arguments: {' '.join(told)}")

    def _meant(self, word: str) -> str | None:
        if not word.startswith("--"):
            return None
        flag = word.split("=", 1)[0]
        if flag in self.mistaken:
            return self.mistaken[flag]
        flags = [f for action in self._actions for f in action.option_strings if f[:2] == "--"]
        close = difflib.get_close_matches(flag, flags, n=1, cutoff=0.8)
        return f"did you mean {close[0]}?" if close else None

    def short_usage(self) -> str:
        words = [self.prog, "[options]"]
        for action in self._get_positional_actions():
            name = action.metavar if isinstance(action.metavar, str) else action.dest
            words.append(f"[{name}]" if action.nargs == "?" else name)
        return f"usage: {' '.join(words)}   (every option: {self.prog} --help)\n"


def player_options(
    parser: argparse.ArgumentParser,
    *,
    flag: str = "--player",
    named_by_policy: bool = False,
    headless: bool = True,
    hosting: bool = False,
) -> None:
    if named_by_policy:
        about = "the bot's name (default: its policy's)"
        parser.add_argument(flag, dest="player", type=player_name, default=None, help=about)
    else:
        name = default_name(login_name())
        parser.add_argument(
            flag,
            dest="player",
            type=player_name,
            default=name,
            help=f"the player's name, at most {NAME_MOST} characters ({name})",
        )
    level = level_help(NEWCOMER) + ("; with --policy, its pace only" if named_by_policy else "")
    parser.add_argument("--level", type=count(1, 10), default=NEWCOMER, help=level)
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help=SEED_HELP,
    )
    parser.add_argument("--interface", metavar="ADDR", help="use mDNS on this address only")
    parser.add_argument("--stats", metavar="FILE", help="write what this peer measured (JSON)")
    parser.add_argument(
        "--state",
        metavar="FILE",
        help="keep this seat's state in FILE while playing; if FILE exists, come back to "
        "the seat it keeps (after a crash)",
    )
    parser.add_argument(
        "--gone-after",
        type=seconds(10, 86400),
        default=GONE_AFTER,
        metavar="S",
        help="end the match when no other seat has answered for S seconds, or the table has "
        f"waited that long for silent seats to come back ({GONE_AFTER:.0f})",
    )
    passphrase_options(parser, hosting=hosting)
    link_options(parser)
    log_options(parser)
    if headless:
        parser.add_argument(
            "--headless", action="store_true", help="a bot plays the seat; print progress lines"
        )
        idle_option(parser)
        look_options(parser)


SEED_HELP = (
    "draw the bots' choices from this seed (no seed fixes the decks: every seat's secret"
    " goes into them)"
)
"""What ``--seed`` does, wherever a command seats bots."""
OFFERED = "(three generated words)"
"""``host --passphrase`` given no words: the host is offered three (`_phrases.generated`)."""


def passphrase_options(parser: argparse.ArgumentParser, *, hosting: bool = False) -> None:
    group = parser.add_argument_group(
        "private tables (only those who know the passphrase sit; it is never sent)"
    )
    given = group.add_mutually_exclusive_group()
    if hosting:
        given.add_argument(
            "--passphrase",
            metavar="TEXT",
            nargs="?",
            const=OFFERED,
            help="make the table private, with this passphrase, or, given no TEXT, with"
            " three words made up here and shown to you (others on this machine may see"
            " a TEXT in `ps`: --passphrase-env or --ask-passphrase keep it out of sight)."
            " Each connection can test one guess, and this host allows 5 wrong ones a"
            " minute from an address, 20 in all: a word or two is warned about",
        )
    else:
        given.add_argument(
            "--passphrase",
            metavar="TEXT",
            help="the table's passphrase (others on this machine may see it in `ps`: "
            "--passphrase-env or --ask-passphrase keep it out of sight)",
        )
    given.add_argument(
        "--passphrase-env",
        metavar="VAR",
        help="read the passphrase from the environment variable VAR",
    )
    given.add_argument(
        "--ask-passphrase",
        action="store_true",
        help="ask for the passphrase on the terminal, without echo (or read the first line "
        "of standard input, when that is not a terminal)",
    )


def host_key_option(parser: argparse.ArgumentParser, verb: str = "join") -> None:
    """``--host-key``, its help saying what the command does (``verb``) only if the host
    proves that key."""
    parser.add_argument(
        "--host-key",
        type=fingerprint_text,
        metavar="XXXX:XXXX:XXXX",
        help=f"{verb} only if the host proves this key (as `p2pnerts tables` shows it); "
        "without it, a table whose key changed since it was last seen is a warning",
    )


def fingerprint_text(text: str) -> str:
    """A key fingerprint as `p2pnerts tables` shows it: three groups of four hex digits."""
    key = text.strip().lower()
    if not re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{4}:[0-9a-f]{4}", key):
        raise argparse.ArgumentTypeError(f"not a key fingerprint (xxxx:xxxx:xxxx): {text!r}")
    return key


def idle_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--idle",
        type=seconds(5, 3600),
        default=IDLE_AFTER,
        metavar="S",
        help=f"after S seconds without a move you are declared stuck, so the table plays "
        f"on without waiting for you ({IDLE_AFTER:.0f})",
    )


def link_options(parser: argparse.ArgumentParser) -> None:
    """How this peer's links are shaped (`net.Shape`): slow motion, a bad Wi-Fi link."""
    group = parser.add_argument_group(
        "link shaping (every link of this peer, in this process: for slow motion and tests)"
    )
    group.add_argument(
        "--delay", type=count(0, 60_000), default=0, metavar="MS", help="add MS to all it sends"
    )
    group.add_argument(
        "--jitter", type=count(0, 60_000), default=0, metavar="MS", help="give or take up to MS"
    )
    group.add_argument(
        "--loss",
        type=_within(float, "a fraction", 0.0, 0.5),
        default=0.0,
        metavar="P",
        help="lose this fraction of what it sends (TCP sends it again, late)",
    )
    group.add_argument(
        "--stall",
        type=stall,
        action="append",
        default=[],
        metavar="AT:S[:hold]",
        help="cut every link AT seconds after play begins, for S seconds (hold: freeze it "
        "instead, delivering what waited at the end); may be given again",
    )
    group = parser.add_argument_group(
        "commit (the host chooses: a seat that joins commits as the table does, told or not)"
    ).add_mutually_exclusive_group()
    group.add_argument(
        "--majority",
        action="store_const",
        const=True,
        help="commit by protocol version 3's majority rule, one round trip to a quorum, as "
        "a table of 4 seats or more does unless told --acks or every other seat is a bot of "
        "this process (play; host --bots filling it): a slow or lossy laptop slows "
        "its own plays, not everyone's; a seat silent for 10 s is left out (the others play "
        "on meanwhile; 2 s where those silent leave too few to play on) and comes back in "
        "when it is heard again. At 2 or 3 seats the quorum would be every seat: such a "
        "table commits by acknowledgement, and says so when told this",
    )
    group.add_argument(
        "--acks",
        action="store_const",
        const=False,
        dest="majority",
        help="commit by every seat's acknowledgement (version 2's rule, and the rule at 2 or "
        "3 seats): each play waits for the slowest seat; a seat silent for 2 s is left out",
    )


def default_log_dir() -> Path:
    """Where a peer writes its game logs unless told: the data directory's logs."""
    return data_dir() / "logs"


def log_options(parser: argparse.ArgumentParser) -> None:
    """Where this peer writes its game log (`net._gamelog`)."""
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--log",
        metavar="DIR",
        help="write this peer's game log (every frame and commit) in DIR (default: "
        f"{default_log_dir()}, the newest {LOGS_KEPT} kept)",
    )
    where.add_argument("--no-log", action="store_true", help="write no game log")


def stall(text: str) -> Stall:
    """``AT:S`` or ``AT:S:hold`` (`link_options`)."""
    parts = text.split(":")
    if len(parts) == 3 and parts[2] in ("hold", "drop"):
        parts, drop = parts[:2], parts[2] == "drop"
    else:
        drop = True
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"not AT:S or AT:S:hold: {text!r}")
    at, length = (seconds(0, 86_400)(part) for part in parts)
    if length <= 0:
        raise argparse.ArgumentTypeError(f"a stall must last some time: {text!r}")
    return Stall(at, length, drop)


def look_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--ascii", action="store_true", help="suits as letters (S H D C)")
    parser.add_argument(
        "--four-colour", action="store_true", help="a four-colour deck (diamonds blue, clubs green)"
    )


def table_options(parser: argparse.ArgumentParser, rounds: int | None = None) -> None:
    group = parser.add_argument_group("table options (the rule texts' variants)")
    end = group.add_mutually_exclusive_group()
    end.add_argument("--target", type=count(1, 10_000), default=100, help="target score (100)")
    end.add_argument("--rounds", type=count(1, 1000), default=rounds, help="fixed rounds")
    group.add_argument("--stock-turn", type=int, choices=(1, 3), default=3)
    group.add_argument("--work-piles", type=int, choices=(4, 5), default=4)
    group.add_argument("--nerts-pile", type=count(1, 26), default=13)
    group.add_argument("--nerts-bonus", type=int, choices=(0, 10, 25), default=0)
    group.add_argument("--jokers", action="store_true", help="jokers as declared wild cards")
    teams_option(group, "players")
    tie_rule_option(group)
    group.add_argument(
        "--no-watchers",
        action="store_true",
        help="refuse spectators (`p2pnerts watch`); a private table asks them its passphrase",
    )


def fan_out_options(parser: argparse.ArgumentParser, work: str) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        type=count(1, 1024),
        default=os.cpu_count() or 1,
        metavar="N",
        help=f"run the {work} in N processes of this machine (default: one per core, "
        f"{os.cpu_count() or 1}); the report is the same",
    )
    where.add_argument(
        "--cluster",
        metavar="HOST:PORT",
        help=f"run the {work} on the workers of a Dask scheduler (pip install "
        "'p2pnerts[cluster]'; docs/scale.md)",
    )


def where_from(args: argparse.Namespace) -> Where:
    """Where ``fan_out_options`` said the work runs."""
    return Where(cluster=args.cluster) if args.cluster else Where(jobs=args.jobs)


def teams_option(parser: Options, seats: str) -> None:
    parser.add_argument(
        "--teams",
        type=team_sizes,
        default=(),
        metavar="N+N[+N...]",
        help="teams sharing a deck, sizes 1-3 in seat order (2+2: seats 1-2 and 3-4); "
        f"sets the number of {seats}",
    )


def tie_rule_option(parser: Options, default: str | None = "both-stay", about: str = "") -> None:
    parser.add_argument(
        "--tie-rule",
        type=choice(rule.value for rule in TieRule),
        default=default,
        metavar="RULE",
        help=f"both-stay, rotate or seat{about}",
    )


def player_name(text: str) -> str:
    """A player's or a spectator's name, as the other peers take it (`name_fault`)."""
    if fault := name_fault(text):
        raise argparse.ArgumentTypeError(fault)
    return text


def table_name(text: str) -> str:
    """A table's name, as it can be announced (`table_name_fault`)."""
    if fault := table_name_fault(text):
        raise argparse.ArgumentTypeError(fault)
    return text


def table_target(text: str) -> str:
    """A table to join or watch: HOST:PORT (`address_of`) with a port there can be, or
    else a table's name."""
    address = address_of(text)
    if address is None:
        return table_name(text)
    if not 1 <= address[1] <= 65_535:
        raise argparse.ArgumentTypeError(f"the port must be 1 to 65,535, not {address[1]:,}")
    return text


def default_name(name: str, fallback: str = "Player") -> str:
    """``name`` made a name the other peers take: its first `NAME_MOST` characters, or
    ``fallback`` if those are not one (a login name may be longer, or odd)."""
    name = name.strip()[:NAME_MOST].strip()
    return fallback if name_fault(name) else name


def count(low: int, high: int) -> Callable[[str], int]:
    """A whole number from ``low`` to ``high``."""
    return _within(int, "a whole number", low, high)


def seconds(low: float, high: float) -> Callable[[str], float]:
    """A number of seconds from ``low`` to ``high``."""
    return _within(float, "a number of seconds", low, high)


def _within(convert: Callable[[str], N], what: str, low: N, high: N) -> Callable[[str], N]:
    def parse(text: str) -> N:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"must be {_number(low)} to {_number(high)}, not {_number(value)}"
            )
        return value

    return parse


def _number(value: float) -> str:
    """A bound as people write it: 1,000,000 (not 1e+06), 0.5."""
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def team_sizes(text: str) -> tuple[int, ...]:
    """Team sizes joined by '+', e.g. 2+2+1, as the options check them."""
    try:
        return teams_from_text(text)
    except BadOptions as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def levels(text: str) -> list[int]:
    """A comma-separated list of bot levels, 1 to 10."""
    return [count(1, 10)(part) for part in text.split(",")]


def choice(names: Iterable[str]) -> Callable[[str], str]:
    allowed = list(names)

    def parse(text: str) -> str:
        if text not in allowed:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(allowed)}")
        return text

    return parse


@dataclass(frozen=True, slots=True)
class Command:
    """A sub-command defined beside what it runs: its name, its one-line help, its
    description, the function that adds its options, and the function it runs."""

    name: str
    help: str
    description: str | None
    options: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    epilog: str | None = None
    """Text after the options; with one, the description's own line breaks are kept."""
    mistaken: tuple[tuple[str, str], ...] = ()
    """Options another command has, or means otherwise, each with what to say instead."""

    def add_to(self, commands: Any) -> None:
        """Add it to the command line's sub-commands (``add_subparsers``'s answer)."""
        parser = commands.add_parser(
            self.name,
            help=self.help,
            description=self.description,
            epilog=self.epilog,
            formatter_class=argparse.RawDescriptionHelpFormatter
            if self.epilog
            else argparse.HelpFormatter,
        )
        self.options(parser)
        parser.mistaken = dict(self.mistaken)
        parser.set_defaults(parser=parser, run=self.run)
