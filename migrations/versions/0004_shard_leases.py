"""shards: matches.shard (which process umpires a match) and shard_leases (who owns a shard)

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0004'
down_revision: Union[str, Sequence[str], None] = '0003'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('shard', sa.Integer(), server_default='0', nullable=False))
        batch_op.create_index(batch_op.f('ix_matches_shard'), ['shard'], unique=False)
    op.create_table(
        'shard_leases',
        sa.Column('shard', sa.Integer(), autoincrement=False, nullable=False),
        sa.Column('owner', sa.Text(), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('wanted_by', sa.Text(), nullable=True),
        sa.PrimaryKeyConstraint('shard'),
    )


def downgrade() -> None:
    op.drop_table('shard_leases')
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_matches_shard'))
        batch_op.drop_column('shard')
