"""Private tables: ``public`` (listed in the lobby only if the host asked) and ``join_code``.

Tables already in the database become private (``public`` false: nobody chose to list them) and
each gets its own fresh join code, so an old database upgrades in place; their links (ids) keep
working, so nobody's seat token is lost.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

# The code format of fieldcraft.server.access at the time of this migration (copied here so
# that a later change there cannot change what this migration does).
_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_LENGTH = 16


def upgrade() -> None:
    op.add_column("game_tables", sa.Column("public", sa.Boolean, nullable=False,
                                           server_default=sa.false()))
    op.add_column("game_tables", sa.Column("join_code", sa.String(16), nullable=True))
    conn = op.get_bind()
    ids = conn.execute(sa.text("SELECT id FROM game_tables")).scalars().all()
    for table_id in ids:
        code = "".join(secrets.choice(_ALPHABET) for _ in range(_LENGTH))
        conn.execute(sa.text("UPDATE game_tables SET join_code = :code WHERE id = :id"),
                     {"code": code, "id": table_id})
    op.create_index("ix_game_tables_join_code", "game_tables", ["join_code"], unique=True)
    op.create_index("ix_game_tables_listed", "game_tables", ["public", "status", "updated_at"])


def downgrade() -> None:
    op.drop_index("ix_game_tables_listed", table_name="game_tables")
    op.drop_index("ix_game_tables_join_code", table_name="game_tables")
    with op.batch_alter_table("game_tables") as batch:
        batch.drop_column("join_code")
        batch.drop_column("public")
