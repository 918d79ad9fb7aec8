"""salted seed commitments: matches.seed_salt; guild_settings.challenge_cooldown_seconds

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-26

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0005'
down_revision: Union[str, Sequence[str], None] = '0004'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # Matches stored before keep None: their commitment is SHA-256 of the seed alone.
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('seed_salt', sa.String(length=64), nullable=True))
    with op.batch_alter_table('guild_settings', schema=None) as batch_op:
        batch_op.add_column(sa.Column('challenge_cooldown_seconds', sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('guild_settings', schema=None) as batch_op:
        batch_op.drop_column('challenge_cooldown_seconds')
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_column('seed_salt')
