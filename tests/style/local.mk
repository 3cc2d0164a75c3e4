# The code's formatting, checked against .clang-format.
TESTS += tests/style/test-format.sh
EXTRA_DIST += tests/style/test-format.sh
