# Fuzzing the wire decoder with libFuzzer (clang).  The target is built
# straight from the codec's sources with clang, not from the gcc-built
# libtool library, so that all of the decoder is instrumented for coverage
# and the sanitizers.  tests/fuzz/run-fuzz.sh runs it: briefly in
# `make check`, for FUZZ_SECONDS with `make fuzz`.  Scratch files stay in
# the build tree (tests/fuzz/fuzz-work/).
FUZZ_SECONDS = 60
# clang, unlike gcc, warns of omitted members in the command table's
# positional initializers, which are deliberate (NULL check functions).
FUZZ_CFLAGS = -g -O1 -std=gnu11 -Wall -Wextra -Werror \
	-Wno-missing-field-initializers \
	-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
fuzz_decode_sources = \
	$(srcdir)/tests/fuzz/fuzz_decode.c \
	$(srcdir)/libcore/error.c \
	$(srcdir)/libcore/ids.c \
	$(srcdir)/libcore/schema.c \
	$(srcdir)/libcore/commands.c \
	$(srcdir)/libcore/cmdrules.c \
	$(srcdir)/libcore/ctlchars.c \
	$(srcdir)/libcore/proto.c \
	$(srcdir)/libcore/packed.c \
	$(srcdir)/libcore/jsonprint.c
fuzz_decode_headers = \
	$(srcdir)/libcore/error.h \
	$(srcdir)/libcore/ids.h \
	$(srcdir)/libcore/schema.h \
	$(srcdir)/libcore/cmdrules.h \
	$(srcdir)/libcore/ctlchars.h \
	$(srcdir)/libcore/proto.h \
	$(srcdir)/libcore/packed.h \
	$(srcdir)/libcore/jsonprint.h
fuzz_seeds = \
	tests/fuzz/corpus/decode/01-heartbeat \
	tests/fuzz/corpus/decode/02-register-worker \
	tests/fuzz/corpus/decode/03-launch-tasks \
	tests/fuzz/corpus/decode/04-status-update \
	tests/fuzz/corpus/decode/05-launch-driver \
	tests/fuzz/corpus/decode/06-registered-executor \
	tests/fuzz/corpus/decode/07-driver-log-response \
	tests/fuzz/corpus/decode/08-master-state-response \
	tests/fuzz/corpus/decode/09-submit-driver \
	tests/fuzz/corpus/decode/10-error \
	tests/fuzz/corpus/decode/11-bad-version \
	tests/fuzz/corpus/decode/12-unknown-command \
	tests/fuzz/corpus/decode/13-truncated \
	tests/fuzz/corpus/decode/14-bad-frame-index \
	tests/fuzz/corpus/decode/15-too-deep \
	tests/fuzz/corpus/decode/16-not-json \
	tests/fuzz/corpus/decode/17-launch-tasks-packed \
	tests/fuzz/corpus/decode/18-status-update-packed

TESTS += tests/fuzz/run-fuzz.sh
EXTRA_DIST += tests/fuzz/fuzz_decode.c tests/fuzz/run-fuzz.sh \
	tests/fuzz/decode.dict $(fuzz_seeds)
CLEANFILES += tests/fuzz/fuzz_decode tests/fuzz/fuzz-work/corpus/* \
	tests/fuzz/fuzz-work/*-* tests/fuzz/fuzz-work/fuzz.log

if HAVE_CLANG
tests/fuzz/fuzz_decode: $(fuzz_decode_sources) $(fuzz_decode_headers) config.h
	@$(MKDIR_P) tests/fuzz
	$(AM_V_CCLD)$(CLANG) $(FUZZ_CFLAGS) -I$(top_srcdir) -I$(top_builddir) \
	  $(CZMQ_CFLAGS) $(ZMQ_CFLAGS) $(CJSON_CFLAGS) -o $@ \
	  $(fuzz_decode_sources) $(CZMQ_LIBS) $(ZMQ_LIBS) $(CJSON_LIBS) -lm
else
tests/fuzz/fuzz_decode:
	@echo "clang was not found by configure: install the Debian package" \
	  "clang and re-run configure to build the fuzz target" >&2; exit 1
endif

fuzz: tests/fuzz/fuzz_decode
	FUZZ_SECONDS=$(FUZZ_SECONDS) srcdir=$(srcdir) \
	  $(SHELL) $(srcdir)/tests/fuzz/run-fuzz.sh
.PHONY: fuzz
