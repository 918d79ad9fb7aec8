"""history and ratings: match_results (one row per ended match) and ratings (per server,
game and player)

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-23

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0003'
down_revision: Union[str, Sequence[str], None] = '0002'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'match_results',
        sa.Column('match_id', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('guild_id', sa.BigInteger(), nullable=False),
        sa.Column('game', sa.String(length=40), nullable=False),
        sa.Column('player0', sa.String(length=64), nullable=False),
        sa.Column('player1', sa.String(length=64), nullable=False),
        sa.Column('names', sa.JSON(), nullable=False),
        sa.Column('outcome', sa.String(length=16), nullable=False),
        sa.Column('winner', sa.Integer(), nullable=True),
        sa.Column('reason', sa.Text(), nullable=False),
        sa.Column('rated', sa.Boolean(), nullable=False),
        sa.Column('changes', sa.JSON(), nullable=False),
        sa.Column('ended_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('match_id'),
    )
    with op.batch_alter_table('match_results', schema=None) as batch_op:
        batch_op.create_index('ix_match_results_guild_game', ['guild_id', 'game', 'match_id'],
                              unique=False)
        batch_op.create_index(batch_op.f('ix_match_results_player0'), ['player0'], unique=False)
        batch_op.create_index(batch_op.f('ix_match_results_player1'), ['player1'], unique=False)
    op.create_table(
        'ratings',
        sa.Column('guild_id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('game', sa.String(length=40), nullable=False),
        sa.Column('player_id', sa.String(length=64), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('mu', sa.Float(), nullable=False),
        sa.Column('sigma', sa.Float(), nullable=False),
        sa.Column('played', sa.Integer(), nullable=False),
        sa.Column('wins', sa.Integer(), nullable=False),
        sa.Column('losses', sa.Integer(), nullable=False),
        sa.Column('draws', sa.Integer(), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('guild_id', 'game', 'player_id'),
    )


def downgrade() -> None:
    op.drop_table('ratings')
    with op.batch_alter_table('match_results', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_match_results_player1'))
        batch_op.drop_index(batch_op.f('ix_match_results_player0'))
        batch_op.drop_index('ix_match_results_guild_game')
    op.drop_table('match_results')
