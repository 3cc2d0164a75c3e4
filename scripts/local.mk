# Operating a cluster: the start/stop scripts, the sample configuration and
# the systemd units (docs/operations.md).
#
# The scripts are installed into $(sbindir) with a "hearth-" prefix
# (hearth-start-cluster.sh...), beside hearth-common.sh, which they source;
# `make install` writes the installed bindir and configuration directory
# into them.  In the source tree they find both themselves.
hearthconfdir = $(sysconfdir)/hearth
cluster_scripts = start-master.sh start-worker.sh start-cluster.sh \
	stop-cluster.sh stop-master.sh stop-worker.sh
EXTRA_DIST += scripts/start-master.sh scripts/start-worker.sh \
	scripts/start-cluster.sh scripts/stop-cluster.sh scripts/stop-master.sh \
	scripts/stop-worker.sh scripts/hearth-common.sh \
	scripts/quickstart scripts/test scripts/install-deps scripts/install-ldconfig \
	systemd/hearth-master.service.in systemd/hearth-worker.service.in

dist_hearthconf_DATA = conf/workers.template conf/hearth-env.sh.template \
	conf/master.env.template conf/worker.env.template \
	conf/hearth-defaults.conf.template

hearth_subst = sed -e 's|@bindir[@]|$(bindir)|g' \
	-e 's|@hearthconfdir[@]|$(hearthconfdir)|g' \
	-e 's|@docdir[@]|$(docdir)|g'

if SYSTEMD_UNITS
systemdunit_DATA = systemd/hearth-master.service systemd/hearth-worker.service
endif
CLEANFILES += systemd/hearth-master.service systemd/hearth-worker.service
systemd/hearth-master.service: $(srcdir)/systemd/hearth-master.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && \
	$(hearth_subst) $(srcdir)/systemd/hearth-master.service.in >$@
systemd/hearth-worker.service: $(srcdir)/systemd/hearth-worker.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) systemd && \
	$(hearth_subst) $(srcdir)/systemd/hearth-worker.service.in >$@

install-exec-local:
	$(MKDIR_P) '$(DESTDIR)$(sbindir)'
	for s in $(cluster_scripts); do \
	  $(hearth_subst) $(srcdir)/scripts/$$s >'$(DESTDIR)$(sbindir)/hearth-'$$s && \
	  chmod 755 '$(DESTDIR)$(sbindir)/hearth-'$$s || exit 1; \
	done
	$(hearth_subst) $(srcdir)/scripts/hearth-common.sh \
	  >'$(DESTDIR)$(sbindir)/hearth-common.sh'
	chmod 644 '$(DESTDIR)$(sbindir)/hearth-common.sh'

uninstall-local:
	for s in $(cluster_scripts) common.sh; do \
	  rm -f '$(DESTDIR)$(sbindir)/hearth-'$$s; \
	done

# For tests/integration/test-install.sh: where `make install` puts things.
print-install-dirs:
	@echo "bindir=$(bindir)"
	@echo "sbindir=$(sbindir)"
	@echo "includedir=$(includedir)"
	@echo "libdir=$(libdir)"
	@echo "pkgconfigdir=$(pkgconfigdir)"
	@echo "hearthconfdir=$(hearthconfdir)"
	@echo "systemdunitdir=$(systemdunitdir)"
	@echo "docdir=$(docdir)"
	@echo "mandir=$(mandir)"
	@echo "pkgdatadir=$(pkgdatadir)"
	@echo "san_cflags='$(SAN_CFLAGS)'"
.PHONY: print-install-dirs
