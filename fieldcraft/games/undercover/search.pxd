# Cython declarations for the compiled build (docs/performance.md); search.py stays the source.
# The evaluation sees the typed state and game and calls the expected-score model's C functions.
from fieldcraft.core.api cimport shuffle
from fieldcraft.core cimport fast
from .base cimport UndercoverTables
from .estimate cimport (
    add_lane,
    blank,
    open_scores,
    reach,
    win_chances,
)
from .rules cimport UndercoverState

cpdef _relabel(UndercoverState state, list mapping, list deals)
