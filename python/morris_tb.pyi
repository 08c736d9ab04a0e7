"""Perfect-play queries for Nine Men's Morris and relatives from morris tables.

See docs/python.md.
"""

from os import PathLike
from types import TracebackType
from typing import Any, Dict, List, Optional, Sequence, Tuple, Type, Union

__version__: str

class MissingTableError(KeyError):
    """The table a position needs is not in the tablebase's directories."""

    sector: str
    """The position's sector, e.g. ``"3-3"`` or ``"2-2-1-2"``."""
    path: str
    """The file looked for."""

class TablebaseError(Exception):
    """A table is damaged, of another rule set, or of an unreadable format version."""

class Position:
    """A position of one rule set; immutable (``push`` returns a new one)."""

    @staticmethod
    def from_fen(fen: str, rules: str = "nine") -> "Position":
        """Reads our notation (``"W:a4,a1,d3 B:a7,d1,c4 w"``) or a Sanmill FEN.

        Raises ``ValueError`` naming what is wrong.
        """
    @staticmethod
    def start(rules: str = "nine") -> "Position":
        """The start position of ``rules``."""
    def fen(self) -> str:
        """A Sanmill FEN on the 24-point boards, else our notation."""
    def text(self) -> str:
        """Our notation, as the command line writes it."""
    @property
    def rules(self) -> str:
        """The rule set's name."""
    @property
    def side_to_move(self) -> str:
        """``"white"`` or ``"black"``."""
    def legal_moves(self) -> List[str]:
        """Legal moves as the command line writes them, in notation order."""
    def push(self, move: str) -> "Position":
        """The position after ``move``; ``ValueError`` when it is not legal."""
    def is_game_over(self) -> bool:
        """Whether the game is over."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...

PositionLike = Union[Position, str]

class Tablebase:
    """Open tables of one rule set (ours, WDL files, Malom's); a context manager."""

    @property
    def rules(self) -> str:
        """The rule set's name."""
    def add_directory(self, path: Union[str, "PathLike[str]"]) -> None:
        """Adds the tables of ``path``, asked after those already open."""
    def probe_wdl(self, pos: PositionLike) -> int:
        """1 win, 0 draw, -1 loss for the side to move; raises ``MissingTableError``."""
    def probe_dtm(self, pos: PositionLike) -> Optional[int]:
        """Signed plies to the end (positive: win), ``None`` for a draw."""
    def get_wdl(self, pos: PositionLike) -> Optional[int]:
        """``probe_wdl`` or ``None`` when a table is missing."""
    def get_dtm(self, pos: PositionLike) -> Optional[int]:
        """``probe_dtm`` or ``None`` when a table is missing."""
    def moves(self, pos: PositionLike) -> List[Tuple[str, int, Optional[int]]]:
        """``(move, wdl, dtm)`` for the mover, best first (as ``morris analyze``)."""
    def best_move(self, pos: PositionLike) -> Optional[str]:
        """A best move (as ``morris bestmove``), ``None`` when the game is over."""
    def probe_wdl_many(self, fens: Sequence[str], as_numpy: bool = False) -> Any:
        """WDL of many positions without the GIL: ``List[int]`` or an ``int8`` array."""
    def sample(self, sector: str, n: int, seed: int = 0, as_numpy: bool = False) -> Any:
        """``n`` random positions of ``sector`` with values (reproducible for ``seed``).

        ``List[Tuple[str, int, Optional[int]]]``, or with ``as_numpy`` a
        ``Dict[str, numpy.ndarray]`` (see docs/python.md).
        """
    def close(self) -> None:
        """Closes the tablebase; later calls raise ``ValueError``."""
    def __enter__(self) -> "Tablebase": ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]] = None,
        exc: Optional[BaseException] = None,
        tb: Optional[TracebackType] = None,
    ) -> bool: ...

def open_tablebase(path: Union[str, "PathLike[str]"], rules: Optional[str] = None) -> Tablebase:
    """Opens the tables in ``path`` (the rule set read from the file names when ``None``)."""

def sample(
    path: Union[str, "PathLike[str]"],
    rules: Optional[str],
    sector: str,
    n: int,
    seed: int = 0,
    as_numpy: bool = False,
) -> Any:
    """``open_tablebase(path, rules).sample(sector, n, seed, as_numpy)`` in one call."""

def looks_like_fen(text: str) -> bool:
    """Whether ``text`` is a Sanmill FEN (it has a ``/``)."""
