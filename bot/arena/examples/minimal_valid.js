{
name: 'MinimalValid',
draftPick(cards) { return 0; },
draftReceive(card) {},
mainPlay(cards, base) { return 0; },
mainPostprocess(card) {},
},
