"""The database tables of the web table, as SQLAlchemy Core metadata.

A game is stored as its action list (one row per action, written and committed before anyone is
told about the action) plus an occasional snapshot of ``state.to_json()`` so that a long game does
not have to be replayed from its first deal at start-up. Everything else (log lines, views) is
recomputed from the actions, which is what makes a restart lose nothing.

The migration scripts under ``migrations/versions`` create exactly these tables; this module is
what the running code uses to query them. Column types are plain portable ones so the same code
runs on SQLite and PostgreSQL.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

game_tables = sa.Table(
    "game_tables",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("overrides", sa.Text, nullable=False),  # JSON object of ruleset overrides
    sa.Column("settings", sa.Text, nullable=False),  # JSON object: turn_seconds, seed, ...
    sa.Column("status", sa.String(16), nullable=False),  # waiting | playing | finished
    sa.Column("host_hash", sa.String(64), nullable=True),
    sa.Column("version", sa.Integer, nullable=False, server_default="0"),
    sa.Column("result", sa.Text, nullable=True),  # JSON outcome once finished
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    # listed in the lobby only if its host ticked "public" (migration 0002)
    sa.Column("public", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("join_code", sa.String(16), nullable=True),  # fieldcraft.server.access
    # the table that a finished one was followed by (its rematch; migration 0003)
    sa.Column("rematch_id", sa.String(32), nullable=True),
    # a branch: the position it starts from, the table and step it was taken from, and the
    # seat whose knowledge was kept (migration 0004); null for an ordinary table
    sa.Column("start_state", sa.Text, nullable=True),  # state.to_json()
    sa.Column("branch_of", sa.String(32), nullable=True),
    sa.Column("branch_step", sa.Integer, nullable=True),
    sa.Column("branch_seat", sa.Integer, nullable=True),
    # the playtest a table was made from, by its page's "Play" (migration 0005); else null
    sa.Column("playtest", sa.String(40), nullable=True),
)
sa.Index("ix_game_tables_status", game_tables.c.status)
sa.Index("ix_game_tables_join_code", game_tables.c.join_code, unique=True)
sa.Index("ix_game_tables_playtest", game_tables.c.playtest)
sa.Index("ix_game_tables_listed", game_tables.c.public, game_tables.c.status,
         game_tables.c.updated_at)

seats = sa.Table(
    "seats",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("kind", sa.String(8), nullable=False),  # human | bot
    sa.Column("bot", sa.String(32), nullable=True),
    sa.Column("name", sa.String(64), nullable=True),
    sa.Column("token_hash", sa.String(64), nullable=True, unique=True),
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),  # 1-based: the version after this action
    sa.Column("action", sa.Integer, nullable=False),
    sa.Column("actor", sa.Integer, nullable=False),  # seat, or -1 for chance
    sa.Column("by_bot", sa.Boolean, nullable=False),
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

snapshots = sa.Table(
    "snapshots",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("state", sa.Text, nullable=False),
)

chat_messages = sa.Table(
    "chat_messages",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),  # 1-based, per table
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),  # the game's version when written
    sa.Column("text", sa.Text, nullable=True),  # free text, or
    sa.Column("phrase", sa.String(32), nullable=True),  # a quick phrase's key
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)

playtests = sa.Table(
    "playtests",
    metadata,
    # a designer's named variant, played by the public from /p/<name> (migration 0005)
    sa.Column("name", sa.String(40), primary_key=True),
    sa.Column("game", sa.String(64), nullable=False),
    sa.Column("min_players", sa.Integer, nullable=False),
    sa.Column("max_players", sa.Integer, nullable=False),
    sa.Column("overrides", sa.Text, nullable=False),  # JSON object of ruleset overrides
    sa.Column("bot", sa.String(32), nullable=False),  # who plays the seats left to bots
    sa.Column("designer_hash", sa.String(64), nullable=False),  # the designer link's token
    sa.Column("status", sa.String(16), nullable=False),  # open | closed
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
)

feedback = sa.Table(
    "feedback",
    metadata,
    # one post-game questionnaire answer per seat of a finished table (migration 0005); the
    # primary key is what makes a second answer impossible, not only the check before it
    sa.Column("table_id", sa.String(32), sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("answers", sa.Text, nullable=False),  # JSON object, checked by feedback.py
    sa.Column("lang", sa.String(16), nullable=True),  # the language it was asked in
    sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
)
