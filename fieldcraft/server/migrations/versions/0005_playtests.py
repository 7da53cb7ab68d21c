"""Playtests and the post-game questionnaire.

``playtests`` holds a designer's named variant (a game, a player range, ruleset overrides, the
bot that fills the seats players leave to bots, and the hash of the designer link's token);
``game_tables.playtest`` tags each table made from one (null for every other table, so existing
rows need nothing); ``feedback`` holds one questionnaire answer per seat of a finished table,
keyed by (table, seat) so the database itself refuses a second answer.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("game_tables", sa.Column("playtest", sa.String(40), nullable=True))
    op.create_index("ix_game_tables_playtest", "game_tables", ["playtest"])
    op.create_table(
        "playtests",
        sa.Column("name", sa.String(40), primary_key=True),
        sa.Column("game", sa.String(64), nullable=False),
        sa.Column("min_players", sa.Integer, nullable=False),
        sa.Column("max_players", sa.Integer, nullable=False),
        sa.Column("overrides", sa.Text, nullable=False),
        sa.Column("bot", sa.String(32), nullable=False),
        sa.Column("designer_hash", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_table(
        "feedback",
        sa.Column("table_id", sa.String(32),
                  sa.ForeignKey("game_tables.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("answers", sa.Text, nullable=False),
        sa.Column("lang", sa.String(16), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("feedback")
    op.drop_table("playtests")
    op.drop_index("ix_game_tables_playtest", table_name="game_tables")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("playtest")
