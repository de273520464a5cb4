"""players, matches, actions, hands

Revision ID: 0001
Revises: 
Create Date: 2026-11-29
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op


revision: str = '0001'
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    
    op.create_table('players',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('name', sa.String(length=40), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_players')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_players_token_hash'))
    )
    op.create_table('matches',
    sa.Column('id', sa.String(length=32), nullable=False),
    sa.Column('rules', sa.String(length=16), nullable=False),
    sa.Column('opponent', sa.String(length=16), nullable=False),
    sa.Column('difficulty', sa.String(length=16), nullable=True),
    sa.Column('seed', sa.String(length=64), nullable=False),
    sa.Column('first_starter', sa.Integer(), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('seat0_id', sa.String(length=32), nullable=False),
    sa.Column('seat1_id', sa.String(length=32), nullable=True),
    sa.Column('watch_token_hash', sa.String(length=64), nullable=False),
    sa.Column('invite_hash', sa.String(length=64), nullable=True),
    sa.Column('hand_number', sa.Integer(), nullable=False),
    sa.Column('score0', sa.Integer(), nullable=False),
    sa.Column('score1', sa.Integer(), nullable=False),
    sa.Column('hands_won0', sa.Integer(), nullable=False),
    sa.Column('hands_won1', sa.Integer(), nullable=False),
    sa.Column('winner', sa.Integer(), nullable=True),
    sa.Column('resigned', sa.Integer(), nullable=True),
    sa.Column('outcome', sa.JSON(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['seat0_id'], ['players.id'], name=op.f('fk_matches_seat0_id_players')),
    sa.ForeignKeyConstraint(['seat1_id'], ['players.id'], name=op.f('fk_matches_seat1_id_players')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_matches')),
    sa.UniqueConstraint('watch_token_hash', name=op.f('uq_matches_watch_token_hash'))
    )
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.create_index('ix_matches_seat0_created', ['seat0_id', 'created_at'], unique=False)
        batch_op.create_index('ix_matches_seat1_created', ['seat1_id', 'created_at'], unique=False)

    op.create_table('actions',
    sa.Column('match_id', sa.String(length=32), nullable=False),
    sa.Column('seq', sa.Integer(), nullable=False),
    sa.Column('seat', sa.Integer(), nullable=False),
    sa.Column('action', sa.JSON(), nullable=False),
    sa.Column('client_id', sa.String(length=64), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_actions_match_id_matches'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('match_id', 'seq', name=op.f('pk_actions')),
    sa.UniqueConstraint('match_id', 'seat', 'client_id', name=op.f('uq_actions_match_id_seat_client_id'))
    )
    op.create_table('hands',
    sa.Column('match_id', sa.String(length=32), nullable=False),
    sa.Column('number', sa.Integer(), nullable=False),
    sa.Column('starter', sa.Integer(), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('winner', sa.Integer(), nullable=True),
    sa.Column('knocker', sa.Integer(), nullable=True),
    sa.Column('points', sa.Integer(), nullable=False),
    sa.Column('result', sa.JSON(), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['match_id'], ['matches.id'], name=op.f('fk_hands_match_id_matches'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('match_id', 'number', name=op.f('pk_hands'))
    )



def downgrade() -> None:
    
    op.drop_table('hands')
    op.drop_table('actions')
    with op.batch_alter_table('matches', schema=None) as batch_op:
        batch_op.drop_index('ix_matches_seat1_created')
        batch_op.drop_index('ix_matches_seat0_created')

    op.drop_table('matches')
    op.drop_table('players')

