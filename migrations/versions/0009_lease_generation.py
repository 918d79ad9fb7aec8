"""lease generation: shard_leases.generation, the fencing token every write of a sharded
match is checked against (it grows each time a lease is taken)

Revision ID: 0009_lease_generation
Revises: 0008_restart_state
Create Date: 2026-12-01

"""
from typing import Sequence, Union

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = '0009_lease_generation'
down_revision: Union[str, Sequence[str], None] = '0008_restart_state'
branch_labels: Union[str, Sequence[str], None] = None
depends_on: Union[str, Sequence[str], None] = None


def upgrade() -> None:
    with op.batch_alter_table('shard_leases', schema=None) as batch_op:
        batch_op.add_column(sa.Column('generation', sa.BigInteger(), server_default='0',
                                      nullable=False))


def downgrade() -> None:
    with op.batch_alter_table('shard_leases', schema=None) as batch_op:
        batch_op.drop_column('generation')
