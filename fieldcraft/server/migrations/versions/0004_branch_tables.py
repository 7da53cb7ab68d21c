"""Branch tables: a game that starts from a position of another, finished one.

``start_state`` is the ``state.to_json()`` the branch starts from (the original's position at
``branch_step``, with everything the branching seat could not see re-dealt); a branch's
``actions`` are the moves after it, so a restart and a replay rebuild it from that state, not
from a new deal. ``branch_of`` is the original table's id (its replay is linked from the
branch's page), ``branch_seat`` the seat whose knowledge was kept. All three are null for an
ordinary table, so existing rows need nothing.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game_tables", sa.Column("start_state", sa.Text, nullable=True))
    op.add_column("game_tables", sa.Column("branch_of", sa.String(32), nullable=True))
    op.add_column("game_tables", sa.Column("branch_step", sa.Integer, nullable=True))
    op.add_column("game_tables", sa.Column("branch_seat", sa.Integer, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("branch_seat")
        batch.drop_column("branch_step")
        batch.drop_column("branch_of")
        batch.drop_column("start_state")
