"""Table options: every variant the rule texts name, with the texts' defaults."""

from __future__ import annotations

from dataclasses import dataclass, fields
from enum import StrEnum

from p2pnerts.rules._errors import BadOptions

MAX_PLAYERS = 64


class TieRule(StrEnum):
    """What happens when two plays onto one foundation are provably concurrent."""

    BOTH_STAY = "both-stay"
    """The texts' rule: a tie that cannot be resolved lets both cards stay."""
    ROTATE = "rotate"
    """Priority rotates with the clock value, so no seat is always favoured."""
    SEAT = "seat"
    """The lower seat number wins."""


@dataclass(frozen=True, slots=True)
class TableOptions:
    """The rules a table plays by, fixed for a whole match."""

    nerts_pile: int = 13
    work_piles: int = 4
    stock_turn: int = 3
    jokers: bool = False
    nerts_bonus: int = 0
    card_points: int = 1
    nerts_penalty: int = 2
    target: int = 100
    rounds: int | None = None
    tie_rule: TieRule = TieRule.BOTH_STAY
    teams: tuple[int, ...] = ()
    """Team sizes in seat order (1 for a player on their own): the first team takes the
    first seats and deck 1, and so on. Empty: everyone plays a deck of their own."""

    def __post_init__(self) -> None:
        deck_size = 54 if self.jokers else 52
        checks = (
            (1 <= self.nerts_pile <= 26, "the Nerts pile holds 1 to 26 cards"),
            (self.work_piles in (4, 5), "a tableau has 4 or 5 work piles"),
            (self.stock_turn in (1, 3), "the stock turns 1 or 3 cards at a time"),
            (self.nerts_bonus in (0, 10, 25), "the Nerts bonus is 0, 10 or 25"),
            (0 <= self.card_points <= 10, "a foundation card scores 0 to 10 points"),
            (0 <= self.nerts_penalty <= 10, "a Nerts card left costs 0 to 10 points"),
            (1 <= self.target <= 10_000, "the target score is 1 to 10000"),
            (self.rounds is None or 1 <= self.rounds <= 1000, "a match has 1 to 1000 rounds"),
            (self.nerts_pile + self.work_piles < deck_size, "the deal must leave a stock"),
        )
        for ok, rule in checks:
            if not ok:
                raise BadOptions(rule)
        if not isinstance(self.tie_rule, TieRule):
            raise BadOptions(f"unknown tie rule {self.tie_rule!r}")
        if not isinstance(self.teams, tuple):
            raise BadOptions("the teams are a tuple of team sizes")
        for size in self.teams:
            if type(size) is not int or not 1 <= size <= 3:
                raise BadOptions(f"a team has 1 to 3 players, not {size!r}")
        if self.teams and (len(self.teams) < 2 or sum(self.teams) > MAX_PLAYERS):
            raise BadOptions(
                f"a table of teams has 2 or more teams and {MAX_PLAYERS} players at most"
            )

    def seating(self, players: int) -> tuple[int, ...]:
        """The deck each of ``players`` seats plays (see `teams`)."""
        if not self.teams:
            return solo_seats(players)
        if sum(self.teams) != players:
            raise BadOptions(f"teams {self.teams_text()} seat {sum(self.teams)}, not {players}")
        return team_seats(*self.teams)

    def teams_text(self) -> str:
        """The teams as the command line writes them: sizes joined by '+' (e.g. 2+2+1)."""
        return "+".join(map(str, self.teams))

    def numbers(self) -> tuple[int, ...]:
        """Every option but the tie rule and the teams, in one fixed order (for the wire);
        ``jokers`` stays a bool, ``rounds`` is 0 for none."""
        return (
            self.nerts_pile,
            self.work_piles,
            self.stock_turn,
            self.jokers,
            self.nerts_bonus,
            self.card_points,
            self.nerts_penalty,
            self.target,
            self.rounds or 0,
        )

    @property
    def deck_size(self) -> int:
        return 54 if self.jokers else 52

    def summary(self) -> str:
        """A short line naming every option that differs from the texts' defaults."""
        default = TableOptions()
        parts = [
            f"{name}={self.teams_text() if name == 'teams' else getattr(self, name)}"
            for name in self.__slots__
            if getattr(self, name) != getattr(default, name)
        ]
        return ", ".join(parts) or "standard rules"


def solo_seats(players: int) -> tuple[int, ...]:
    """Seating with every player on a tableau of their own."""
    return tuple(range(players))


def team_seats(*team_sizes: int) -> tuple[int, ...]:
    """Seating for teams of the given sizes (1 for a player on their own), in seat order."""
    return tuple(team for team, size in enumerate(team_sizes) for _ in range(size))


def summary_teams(summary: str) -> tuple[str, str]:
    """An options summary (`TableOptions.summary`) split into its teams as written
    (``2+2``, or empty) and the rest (``rounds=2, teams=2+2`` → ``2+2``, ``rounds=2``)."""
    parts = summary.split(", ")
    teams = next((p.removeprefix("teams=") for p in parts if p.startswith("teams=")), "")
    return teams, ", ".join(p for p in parts if not p.startswith("teams="))


def teams_from_text(text: str) -> tuple[int, ...]:
    """Teams as the command line and an options summary write them, sizes joined by '+'
    (``2+1+2``; empty for none), checked as `TableOptions` checks them (`BadOptions`)."""
    if not text:
        return ()
    parts = text.split("+")
    if not all(part.isdigit() for part in parts):
        raise BadOptions(f"teams are sizes joined by +, like 2+2, not {text!r}")
    sizes = tuple(int(part) for part in parts)
    TableOptions(teams=sizes)
    return sizes


def options_from_summary(summary: str) -> TableOptions:
    """The options a summary names (`TableOptions.summary`: ``rounds=3, tie_rule=rotate``),
    every other one the texts' default; `BadOptions` for a summary it does not name."""
    if summary == "standard rules":
        return TableOptions()
    values: dict[str, object] = {}
    for part in summary.split(", "):
        name, sep, text = part.partition("=")
        if not sep or name not in {f.name for f in fields(TableOptions)}:
            raise BadOptions(f"no table option is written {part!r}")
        values[name] = _option_value(name, text)
    return TableOptions(**values)  # type: ignore[arg-type]


def _option_value(name: str, text: str) -> object:
    """One option's value as `TableOptions.summary` writes it."""
    if name == "teams":
        return teams_from_text(text)
    if name == "tie_rule":
        if text not in set(TieRule):
            raise BadOptions(f"unknown tie rule {text!r}")
        return TieRule(text)
    if name == "jokers" and text in ("True", "False"):
        return text == "True"
    if name == "rounds" and text == "None":
        return None
    if not text.lstrip("-").isdigit():
        raise BadOptions(f"the option {name} is not {text!r}")
    return int(text)
