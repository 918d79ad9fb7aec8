# The C declarations of players.py's classes for the arena's compiled build (setup.py copies
# this file beside the compiled twin of players.py): the four API methods are cpdef, so the
# compiled core calls them through the class's C table (a Python subclass's own methods are
# still the ones called), and the instance attributes are C slots.

cdef class Player:
    cpdef draft_pick(self, cards)
    cpdef draft_receive(self, card)
    cpdef main_play(self, cards, base)
    cpdef main_postprocess(self, card)


cdef class MinimalValid(Player):
    cpdef draft_pick(self, cards)
    cpdef draft_receive(self, card)
    cpdef main_play(self, cards, base)
    cpdef main_postprocess(self, card)


cdef class Simple(Player):
    cdef public set my_deck
    cpdef draft_pick(self, cards)
    cpdef draft_receive(self, card)
    cpdef main_play(self, cards, base)
    cpdef main_postprocess(self, card)


cdef class Tracker(Player):
    cdef public object mine, passed, bases, opp_played
    cpdef draft_pick(self, cards)
    cpdef draft_receive(self, card)
    cpdef main_postprocess(self, card)


cdef class BasicOdds(Tracker):
    cpdef main_play(self, cards, base)


cdef class Saver(Tracker):
    cpdef main_play(self, cards, base)
