"""ratings and rating changes; rated and public matches

Revision ID: ratings
Revises: clocks
Create Date: 2026-12-01 13:18:56.090872
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = 'ratings'
down_revision: str | Sequence[str] | None = 'clocks'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('ratings',
    sa.Column('player_id', sa.String(length=32), nullable=False),
    sa.Column('rating', sa.Float(), nullable=False),
    sa.Column('deviation', sa.Float(), nullable=False),
    sa.Column('volatility', sa.Float(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_ratings_player_id_players')),
    sa.PrimaryKeyConstraint('player_id', name=op.f('pk_ratings'))
    )
    with op.batch_alter_table('ratings', schema=None) as batch_op:
        batch_op.create_index('ix_ratings_games_rating', ['games', 'rating'], unique=False)

    op.create_table('rating_changes',
    sa.Column('match_id', sa.String(length=32), nullable=False),
    sa.Column('player_id', sa.String(length=32), nullable=False),
    sa.Column('rating', sa.Float(), nullable=False),
    sa.Column('deviation', sa.Float(), nullable=False),
    sa.Column('volatility', sa.Float(), nullable=False),
    sa.Column('games', sa.Integer(), nullable=False),
    sa.Column('rated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_rating_changes_match_id_matches'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['player_id'], ['players.id'], name=op.f('fk_rating_changes_player_id_players')),
    sa.PrimaryKeyConstraint('match_id', 'player_id', name=op.f('pk_rating_changes'))
    )
    with op.batch_alter_table('rating_changes', schema=None) as batch_op:
        batch_op.create_index('ix_rating_changes_player_rated', ['player_id', 'rated_at'], unique=False)

    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.add_column(sa.Column('rated', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.add_column(sa.Column('public', sa.Boolean(), server_default=sa.false(), nullable=False))
        batch_op.create_index('ix_matches_status_public_created', ['status', 'public', 'created_at'], unique=False)



def downgrade() -> None:
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_index('ix_matches_status_public_created')
        batch_op.drop_column('public')
        batch_op.drop_column('rated')

    with op.batch_alter_table('rating_changes', schema=None) as batch_op:
        batch_op.drop_index('ix_rating_changes_player_rated')

    op.drop_table('rating_changes')
    with op.batch_alter_table('ratings', schema=None) as batch_op:
        batch_op.drop_index('ix_ratings_games_rating')

    op.drop_table('ratings')
