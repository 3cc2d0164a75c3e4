# Unit tests: one cmocka program per libcore module.
UNIT_TESTS =
TESTS += $(UNIT_TESTS)
check_PROGRAMS += $(UNIT_TESTS)
unit_libs = $(CORE_LIBS) $(CMOCKA_LIBS)
unit_cflags = $(AM_CFLAGS) $(CMOCKA_CFLAGS)

UNIT_TESTS += tests/unit/test_alloc
tests_unit_test_alloc_SOURCES = tests/unit/test_alloc.c
tests_unit_test_alloc_CFLAGS = $(unit_cflags)
tests_unit_test_alloc_LDADD = $(unit_libs)

UNIT_TESTS += tests/unit/test_liveness
tests_unit_test_liveness_SOURCES = tests/unit/test_liveness.c
tests_unit_test_liveness_CFLAGS = $(unit_cflags)
tests_unit_test_liveness_LDADD = $(unit_libs)
