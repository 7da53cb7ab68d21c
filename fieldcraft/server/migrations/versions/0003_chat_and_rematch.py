"""Table chat (``chat_messages``) and the rematch link of a finished table (``rematch_id``).

Chat is stored with its table, like the actions: one row per message, numbered per table, with
the game version it was written at (a replay shows it at that step). A message is either free
text or a quick phrase's key (shown in each reader's language). ``rematch_id`` is the table a
finished one was followed by, so every seat's page can offer "rematch: join", also after a
restart.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chat_messages",
        sa.Column("table_id", sa.String(32),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("text", sa.Text, nullable=True),
        sa.Column("phrase", sa.String(32), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.add_column("game_tables", sa.Column("rematch_id", sa.String(32), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("rematch_id")
    op.drop_table("chat_messages")
