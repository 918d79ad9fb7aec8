"""restart state: clock_stops (clocks stopped for a down or held channel), challenges (open
/challenge messages and when each member last challenged)

Revision ID: 0008_restart_state
Revises: 0007_tournaments
Create Date: 2026-11-26

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0008_restart_state'
down_revision: Union[str, Sequence[str], None] = '0007_tournaments'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'clock_stops',
        sa.Column('match_id', sa.Integer(), nullable=False),
        sa.Column('prompt_key', sa.String(length=200), nullable=False),
        sa.Column('since', sa.DateTime(timezone=True), nullable=False),
        sa.Column('channels', sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('match_id', 'prompt_key'),
    )
    op.create_table(
        'challenges',
        sa.Column('message_id', sa.BigInteger(), nullable=False),
        sa.Column('guild_id', sa.BigInteger(), nullable=False),
        sa.Column('challenger', sa.BigInteger(), nullable=False),
        sa.Column('opponent', sa.BigInteger(), nullable=False),
        sa.Column('game', sa.String(length=40), nullable=False),
        sa.Column('link', sa.String(length=300), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('answered_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('message_id'),
    )
    op.create_index('ix_challenges_guild', 'challenges', ['guild_id', 'created_at'])


def downgrade() -> None:
    op.drop_index('ix_challenges_guild', table_name='challenges')
    op.drop_table('challenges')
    op.drop_table('clock_stops')
