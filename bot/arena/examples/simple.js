{
name: 'Simple',
myDeck: new Set(),
draftPick(cards) {
let cardId = cards[0][1] < cards[1][1] ? 1 : 0;
this.myDeck.add(cards[cardId]);
return cardId;
},
draftReceive(card) {
this.myDeck.add(card);
},
mainPlay(cards, base) {
this.myDeck.delete(cards[0]);
return 0;
},
mainPostprocess(card) {
},
},
