/*  test_crc32c.c - CRC-32C: the standard check value, RFC 3720's test
    vectors, extension over pieces, and the instruction and the table
    against a bitwise reference on random data of every alignment. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/crc32c.h"

/* One bit at a time, straight from the definition. */
static uint32_t
s_reference (const unsigned char *p, size_t len)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) {
        c ^= p[i];
        for (int b = 0; b < 8; b++)
            c = (c >> 1) ^ (0x82F63B78u & (0u - (c & 1)));
    }
    return ~c;
}

static void
test_check_value (void **state)
{
    (void) state;
    assert_int_equal (hearth_crc32c ("123456789", 9), 0xE3069283u);
    assert_int_equal (hearth_crc32c_table (0, "123456789", 9), 0xE3069283u);
    assert_int_equal (hearth_crc32c ("", 0), 0);
}

/* RFC 3720 (iSCSI), appendix B.4. */
static void
test_rfc3720 (void **state)
{
    (void) state;
    unsigned char buf[32];
    memset (buf, 0, sizeof buf);
    assert_int_equal (hearth_crc32c (buf, 32), 0x8A9136AAu);
    memset (buf, 0xff, sizeof buf);
    assert_int_equal (hearth_crc32c (buf, 32), 0x62A8AB43u);
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char) i;
    assert_int_equal (hearth_crc32c (buf, 32), 0x46DD794Eu);
    for (int i = 0; i < 32; i++)
        buf[i] = (unsigned char) (31 - i);
    assert_int_equal (hearth_crc32c (buf, 32), 0x113FDB5Cu);
}

static void
test_random_against_reference (void **state)
{
    (void) state;
    enum { size = 4096 };
    unsigned char *buf = malloc (size + 16);
    assert_non_null (buf);
    unsigned seed = 20261201;
    for (size_t i = 0; i < size + 16; i++)
        buf[i] = (unsigned char) (rand_r (&seed) >> 7);
    for (size_t off = 0; off < 16; off++)
        for (size_t len = 0; len < size; len += 1 + len / 3) {
            uint32_t want = s_reference (buf + off, len);
            assert_int_equal (hearth_crc32c (buf + off, len), want);
            assert_int_equal (hearth_crc32c_table (0, buf + off, len), want);
        }
    free (buf);
}

static void
test_extend_over_pieces (void **state)
{
    (void) state;
    const char text[] = "a record\twith its value\nand another one\n";
    size_t n = sizeof text - 1;
    uint32_t whole = hearth_crc32c (text, n);
    for (size_t cut = 0; cut <= n; cut++) {
        uint32_t c = hearth_crc32c (text, cut);
        assert_int_equal (hearth_crc32c_extend (c, text + cut, n - cut), whole);
        c = hearth_crc32c_table (0, text, cut);
        assert_int_equal (hearth_crc32c_table (c, text + cut, n - cut), whole);
    }
}

int
main (void)
{
    alarm (60);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_check_value),
        cmocka_unit_test (test_rfc3720),
        cmocka_unit_test (test_random_against_reference),
        cmocka_unit_test (test_extend_over_pieces),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
