# C declarations for the arena's compiled build of wave.py (setup.py copies this file
# beside its twin): where a match's bytes lie, and the sizes of the rules, as C constants
# (in pure Python they are the module's ints).

cdef Py_ssize_t TERMS, ARR0, ARR1, DECK0, DECK1, OWN0, OWN1, HAND0, HAND1
cdef Py_ssize_t NOTE0, NOTE1, PICK0, SCORE1, STRIDE, NONE
cdef Py_ssize_t _LAST_ROUND, _GAMES, _HAND, _DECK, _CARDS
