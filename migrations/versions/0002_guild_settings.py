"""guild settings: per-server host role, host log, friendly matches, game defaults, channel
mode, archive delay

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0002'
down_revision: Union[str, Sequence[str], None] = '0001'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    op.create_table(
        'guild_settings',
        sa.Column('guild_id', sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column('host_role_id', sa.BigInteger(), nullable=True),
        sa.Column('log_channel_id', sa.BigInteger(), nullable=True),
        sa.Column('friendly_matches', sa.Boolean(), nullable=True),
        sa.Column('game_settings', sa.JSON(), nullable=False),
        sa.Column('channel_mode', sa.String(length=16), nullable=True),
        sa.Column('archive_delay_minutes', sa.Integer(), nullable=True),
        sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('guild_id'),
    )


def downgrade() -> None:
    op.drop_table('guild_settings')
