"""Dice notation -> AST.

Accepted (Roll20 / Foundry / Avrae notation):
    NdX, dX, d%, dF, integers, + - * / (rounds down; Avrae's // too) % (remainder), unary minus, parentheses,
    comparisons == != < > <= >= (with spaces around them when they follow a dice term),
    keep/drop khN klN kN(=kh) dhN dlN dN(=dl) pN phN plN, k>N k<N (Avrae selectors),
    explode ! !>=N !=N ..., compound !!, penetrate !p, both !!p, Avrae eN e>N, Foundry x x>=N,
    reroll rN r<=N (until it no longer matches), ro (once), rr (recursive), ra (once and add),
    miN maN (each die at least / at most N), crit markers cs>N cf<N, sorting s sa sd,
    success counting >=N >N <=N <N =N right after the dice (no space), failures fN f<=N,
    groups {a, b}kh1 and (a, b)kh1, labels 2d6[fire],
    functions floor() ceil() round() abs() max(a, b, ...) min(a, b, ...).

Comparison operators keep their mathematical meaning everywhere: `<` is strictly less (Roll20 reads
`cs>19` and `3d6>3` as "19 or more", "3 or more"; here they are "more than").
Inside floor(), ceil() and round(), a division that is the whole argument is exact before rounding
(`ceil(7/2)` is 4; round() takes halves up, as Roll20 and Foundry do); anywhere else `/` rounds down. A comparison
written right after `!`, `!!`, `!p`, `e` or `r` belongs to that modifier (`1d6!>=5` explodes on 5
and 6); to count successes on exploding dice write the explosion face first: `5d10!10>=8`.

The package: `nodes` (the tree, its caps, the walks) and `parser` (text -> tree).
"""

from .nodes import (
    FUNCTIONS,
    MAX_CONSTANT,
    MAX_DEPTH,
    MAX_DICE,
    MAX_SIDES,
    MAX_TEXT,
    Binary,
    Call,
    Clamp,
    Cmp,
    Compare,
    Const,
    Dice,
    Explode,
    Group,
    Label,
    Node,
    Reroll,
    SetOp,
    Unary,
    children,
    clamped,
    count_dice,
    doubled_dice,
    left_spine,
)
from .parser import ADVANTAGE, parse

__all__ = ["MAX_TEXT", "MAX_DICE", "MAX_SIDES", "MAX_DEPTH", "MAX_CONSTANT", "Cmp", "SetOp", "Explode", "Reroll", "Clamp", "Dice", "Const", "Unary", "Binary", "Compare", "Group", "Label", "Call", "FUNCTIONS", "Node", "left_spine", "children", "clamped", "doubled_dice", "count_dice", "ADVANTAGE", "parse"]
