"""match commitment: matches.match_commitment (what the start's published hash covers)

Revision ID: 0006_verify
Revises: 0005
Create Date: 2026-11-26

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0006_verify'
down_revision: Union[str, Sequence[str], None] = '0005'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    # Matches stored before keep None: `verify` checks them as before and says what it could
    # not check (the players' names, the settings and the start time).
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('match_commitment', sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_column('match_commitment')
