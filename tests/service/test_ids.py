"""The secrets a person pastes on a command line never begin with '-' (argparse would read one
as an option), and are no weaker than the draws they replaced."""

import string

from server.service.ids import SecretIds

URL_SAFE = set(string.ascii_letters + string.digits + "-_")
DRAWS = 4000  # with the old draws, P(no leading '-' in 4000) = (63/64)**4000, about 1e-27


def test_tokens_never_begin_with_a_dash_and_keep_their_256_bits():
    ids = SecretIds()
    tokens = [ids.token() for _ in range(DRAWS)]
    assert not [t for t in tokens if t.startswith("-")]
    assert all(set(t) <= URL_SAFE for t in tokens)
    # 32 random bytes are 43 base64url characters; one more character is drawn in front.
    assert {len(t) for t in tokens} == {44}
    assert len(set(tokens)) == DRAWS
    # The first character is drawn from 62 letters and digits, not a constant.
    assert len({t[0] for t in tokens}) > 50


def test_invite_codes_never_begin_with_a_dash_and_keep_their_96_bits():
    ids = SecretIds()
    codes = [ids.invite() for _ in range(DRAWS)]
    assert not [c for c in codes if c.startswith("-")]
    assert all(set(c) <= URL_SAFE for c in codes)
    assert {len(c) for c in codes} == {17}
    assert len(set(codes)) == DRAWS


def test_ids_a_person_pastes_start_with_their_kind():
    ids = SecretIds()
    assert ids.match_id().startswith("m_") and ids.player_id().startswith("p_")
    assert ids.seek_id().startswith("k_")
    assert all(c in string.hexdigits for c in ids.seed())
