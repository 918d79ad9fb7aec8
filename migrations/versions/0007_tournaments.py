"""tournaments: events, their entrants, and which match plays which pairing

Revision ID: 0007_tournaments
Revises: 0006_verify
Create Date: 2026-11-26

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0007_tournaments'
down_revision: Union[str, Sequence[str], None] = '0006_verify'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'events',
        sa.Column('id', sa.Integer(), autoincrement=True, nullable=False),
        sa.Column('guild_id', sa.BigInteger(), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('game', sa.String(length=40), nullable=False),
        sa.Column('settings', sa.JSON(), nullable=False),
        sa.Column('format', sa.String(length=20), nullable=False),
        sa.Column('rated', sa.Boolean(), nullable=False),
        sa.Column('break_seconds', sa.Integer(), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('state', sa.JSON(), nullable=True),
        sa.Column('data', sa.JSON(), nullable=False),
        sa.Column('round_opens_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('message_id', sa.BigInteger(), nullable=True),
        sa.Column('version', sa.Integer(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id'),
    )
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.create_index('ix_events_guild_status', ['guild_id', 'status'], unique=False)
        batch_op.create_index(batch_op.f('ix_events_status'), ['status'], unique=False)
    op.create_table(
        'event_entrants',
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('player_id', sa.String(length=64), nullable=False),
        sa.Column('name', sa.String(length=100), nullable=False),
        sa.Column('bot', sa.String(length=200), nullable=True),
        sa.Column('position', sa.Integer(), nullable=False),
        sa.Column('withdrawn', sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(['event_id'], ['events.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('event_id', 'player_id'),
    )
    with op.batch_alter_table('event_entrants', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_event_entrants_player_id'), ['player_id'],
                              unique=False)
    op.create_table(
        'event_matches',
        sa.Column('event_id', sa.Integer(), nullable=False),
        sa.Column('pairing', sa.String(length=40), nullable=False),
        sa.Column('match_id', sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(['event_id'], ['events.id'], ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['match_id'], ['matches.id'], ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('event_id', 'pairing'),
    )
    with op.batch_alter_table('event_matches', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_event_matches_match_id'), ['match_id'],
                              unique=False)


def downgrade() -> None:
    with op.batch_alter_table('event_matches', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_event_matches_match_id'))
    op.drop_table('event_matches')
    with op.batch_alter_table('event_entrants', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_event_entrants_player_id'))
    op.drop_table('event_entrants')
    with op.batch_alter_table('events', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_events_status'))
        batch_op.drop_index('ix_events_guild_status')
    op.drop_table('events')
