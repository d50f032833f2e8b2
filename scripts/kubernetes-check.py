"""`make kubernetes-check`: deploy/kubernetes/ validated against the schemas of pinned Kubernetes
versions (kubernetes-validate, strict: an unknown field fails), and held to what the gateway and
its image need, each rule failing with the file and what is wrong:

- kustomization.yaml lists every manifest, and points at the release's image tag;
- the pod runs as the image's user (10001), not root, with a read-only root, no capability, no
  privilege escalation, requests and a memory limit;
- terminationGracePeriodSeconds is above gateway.json's drain_seconds;
- the probes ask /readyz and /healthz on the port of gateway.json's metrics_listen, the Service
  and the container's http port are its listen port;
- every key file gateway.json names comes from the Secret's items;
- the Service, the PodDisruptionBudget and the Deployment select the pods' labels.

Before all that it checks itself: a copy of the Deployment with a misspelt field must fail.
Usage: python scripts/kubernetes-check.py [ROOT]
"""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys
import tempfile

import yaml

# The oldest and the newest Kubernetes release supported when these manifests were written.
KUBERNETES_VERSIONS = ["1.35.0", "1.37.0"]
IMAGE_USER = 10001

failures: list[str] = []


def check(condition: bool, file: str, message: str) -> None:
    if not condition:
        failures.append(f"{file}: {message}")


def validate(paths: list[pathlib.Path], version: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kubernetes_validate", "--strict", "--quiet", "-k", version, *map(str, paths)],
        capture_output=True,
        text=True,
    )


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
    folder = root / "deploy" / "kubernetes"
    version = re.search(r'static let version = "(.*)"', (root / "Sources/PushSealCore/PushSealRelease.swift").read_text())[1]
    manifests = sorted(path for path in folder.glob("*.yaml") if path.name != "kustomization.yaml")

    with tempfile.TemporaryDirectory() as scratch:
        broken = pathlib.Path(scratch) / "deployment.yaml"
        broken.write_text((folder / "deployment.yaml").read_text().replace("readOnlyRootFilesystem", "readOnlyRootFileSystem"))
        if validate([broken], KUBERNETES_VERSIONS[0]).returncode == 0:
            print("kubernetes-check: the validator took a misspelt field: it checks nothing", file=sys.stderr)
            return 1

    for kubernetes in KUBERNETES_VERSIONS:
        result = validate(manifests, kubernetes)
        check(result.returncode == 0, "deploy/kubernetes", f"Kubernetes {kubernetes}: {result.stdout}{result.stderr}")

    objects = {}
    for path in manifests:
        for document in yaml.safe_load_all(path.read_text()):
            objects[document["kind"]] = (path.name, document)
    kustomization = yaml.safe_load((folder / "kustomization.yaml").read_text())
    check(
        sorted(kustomization["resources"]) == [path.name for path in manifests],
        "kustomization.yaml",
        f"resources {kustomization['resources']} are not the manifests {[path.name for path in manifests]}",
    )
    check(
        [image.get("newTag") for image in kustomization["images"]] == [version],
        "kustomization.yaml",
        f"images {kustomization['images']} do not name the release {version}",
    )

    config_file, config_map = objects["ConfigMap"]
    gateway = json.loads(config_map["data"]["gateway.json"])
    deployment_file, deployment = objects["Deployment"]
    pod = deployment["spec"]["template"]["spec"]
    labels = deployment["spec"]["template"]["metadata"]["labels"]
    (container,) = pod["containers"]
    check(container["image"].endswith(f":{version}"), deployment_file, f"image {container['image']} is not {version}")
    security = pod["securityContext"]
    check(security.get("runAsNonRoot") is True, deployment_file, "runAsNonRoot is not true")
    check(security.get("runAsUser") == IMAGE_USER, deployment_file, f"runAsUser is not the image's user {IMAGE_USER}")
    check(security.get("fsGroup") == IMAGE_USER, deployment_file, "fsGroup is not the image's group: the keys are unreadable")
    own = container.get("securityContext", {})
    check(own.get("readOnlyRootFilesystem") is True, deployment_file, "the root file system is not read-only")
    check(own.get("allowPrivilegeEscalation") is False, deployment_file, "privilege escalation is allowed")
    check(own.get("capabilities", {}).get("drop") == ["ALL"], deployment_file, "capabilities are not all dropped")
    resources = container.get("resources", {})
    check({"cpu", "memory"} <= set(resources.get("requests", {})), deployment_file, "no cpu and memory requests")
    check("memory" in resources.get("limits", {}), deployment_file, "no memory limit")

    grace = pod.get("terminationGracePeriodSeconds", 30)
    drain = gateway.get("drain_seconds", 10)
    check(grace > drain, deployment_file, f"terminationGracePeriodSeconds {grace} is not above drain_seconds {drain}")

    ports = {port["name"]: port["containerPort"] for port in container["ports"]}
    listen = int(gateway["listen"].rsplit(":", 1)[1])
    metrics = int(gateway["metrics_listen"].rsplit(":", 1)[1])
    check(ports.get("http") == listen, deployment_file, f"port http {ports.get('http')} is not listen's {listen}")
    check(ports.get("metrics") == metrics, deployment_file, f"port metrics is not metrics_listen's {metrics}")
    for probe, path in [("readinessProbe", "/readyz"), ("livenessProbe", "/healthz"), ("startupProbe", "/healthz")]:
        asked = container.get(probe, {}).get("httpGet", {})
        check(asked.get("path") == path and asked.get("port") == "metrics", deployment_file, f"{probe} is not GET {path} on metrics")
    annotations = deployment["spec"]["template"]["metadata"].get("annotations", {})
    check(annotations.get("prometheus.io/port") == str(metrics), deployment_file, "the scrape annotation is not metrics_listen's port")

    mounts = {mount["name"]: mount["mountPath"] for mount in container["volumeMounts"]}
    (keys,) = [volume["secret"] for volume in pod["volumes"] if "secret" in volume]
    provided = {f"{mounts['keys']}/{item['path']}" for item in keys["items"]}
    named = set(gateway.get("sender_key_files", [])) | {gateway["apns"]["auth_key_file"]}
    check(named <= provided, deployment_file, f"gateway.json names {sorted(named - provided)}, which the Secret does not provide")
    check(keys.get("defaultMode", 0o644) & 0o037 == 0, deployment_file, "the keys' mode lets others read them or the group write")

    for kind in ["Service", "PodDisruptionBudget"]:
        file, document = objects[kind]
        selector = document["spec"]["selector"]
        selector = selector.get("matchLabels", selector)
        check(selector.items() <= labels.items(), file, f"selector {selector} does not match the pods' labels {labels}")
    service_file, service = objects["Service"]
    check(
        [(port["targetPort"], port["port"]) for port in service["spec"]["ports"]] == [("http", listen)],
        service_file,
        "the Service does not forward its port to the container's http port",
    )

    for failure in failures:
        print(f"kubernetes-check: {failure}", file=sys.stderr)
    if failures:
        return 1
    print(f"kubernetes-check: {len(manifests)} manifests valid on Kubernetes {', '.join(KUBERNETES_VERSIONS)}, and consistent")
    return 0


if __name__ == "__main__":
    sys.exit(main())
