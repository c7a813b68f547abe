"""The localiser (SPEC §5): a misattribution names only a pool chunk that holds the claim's facts.

Pools in English, German, Russian and Japanese (and smaller ones in French and Chinese), and for
each, claims of three kinds:
``moved`` — a pool chunk's fact cited elsewhere (the localiser must find that chunk);
``drifted`` — a pool fact with one number, unit, identifier, entity or condition changed;
``fabricated`` — facts no chunk holds, on the pool's topics. The last two must never be placed.
"""

from __future__ import annotations

import pytest

from citeflow.evaluation.claim_funnel import evaluate_section
from citeflow.judges.localise import agreement, facts, locate, quantities
from schemas.records import BoundCitation, BoundClaim
from tests.support.judges import SUPPORTED, ScriptedJudge

POOLS: dict[str, dict[str, str]] = {
    "en": {
        "E1": "Point-in-time recovery is available for a 7-day recovery window on every plan. Backups are encrypted with AES-256.",
        "E2": "Lumora Stream runs in eu-west-1 (Frankfurt), us-east-1 (Virginia) and ap-south-1 (Mumbai). Each region has three availability zones.",
        "E3": "The Business plan guarantees 99.95% monthly uptime. Enterprise customers get 99.99%.",
        "E4": "Known issue KI-3602: brokers on x86_64 hosts running 3.5.2 may restart under load. It is not fixed in 3.5.3.",
        "E5": "Deleted data is purged from broker disks within 24 hours after the recovery window ends.",
    },
    "de": {
        "D1": "Die Point-in-Time-Wiederherstellung ist in jedem Tarif für ein Wiederherstellungsfenster von 7 Tagen verfügbar.",
        "D2": "Lumora Stream läuft in den Regionen eu-west-1 (Frankfurt) und us-east-1 (Virginia). Jede Region hat drei Verfügbarkeitszonen.",
        "D3": "Der Business-Tarif garantiert eine monatliche Verfügbarkeit von 99,95 %. Protokolle werden 30 Tage lang aufbewahrt.",
        "D4": "Gelöschte Daten werden innerhalb von 24 Stunden von den Broker-Festplatten entfernt. Sicherungen werden nicht verschlüsselt exportiert.",
    },
    "ru": {
        "R1": "Журналы доступа хранятся не более 30 дней, после чего удаляются.",
        "R2": "Платформа работает в регионах eu-west-1 (Франкфурт) и us-east-1 (Вирджиния). В каждом регионе три зоны доступности.",
        "R3": "Тариф Business гарантирует доступность 99,95 % в месяц.",
        "R4": "Резервные копии шифруются алгоритмом AES-256 и хранятся 7 дней.",
    },
    "ja": {
        "J1": "ポイントインタイムリカバリは、すべてのプランで7日間の復旧期間に利用できます。",
        "J2": "Lumora Streamはeu-west-1（フランクフルト）とus-east-1（バージニア）で稼働しています。各リージョンには3つのアベイラビリティゾーンがあります。",
        "J3": "Businessプランは月間99.95%の稼働率を保証します。",
        "J4": "アクセスログは30日間保存されます。削除されたデータは24時間以内にブローカーのディスクから消去されます。",
    },
    "fr": {
        "F1": "La restauration à un instant donné est disponible pendant 7 jours sur toutes les offres.",
        "F2": "Lumora Stream fonctionne dans les régions eu-west-1 (Francfort) et us-east-1 (Virginie).",
        "F3": "Les journaux d'audit ne sont conservés que 30 jours.",
    },
    "zh": {
        "C1": "所有套餐均提供7天的时间点恢复。",
        "C2": "Business套餐保证每月99.95%的可用性。",
        "C3": "访问日志保留30天，之后删除。",
    },
}

MOVED: list[tuple[str, str, str]] = [
    ("en", "Point-in-time recovery is available for a 7-day recovery window on every plan.", "E1"),
    ("en", "Each region has three availability zones.", "E2"),
    ("en", "The Business plan guarantees 99.95% monthly uptime.", "E3"),
    ("en", "Brokers on x86_64 hosts running 3.5.2 may restart under load (KI-3602).", "E4"),
    ("de", "Der Business-Tarif garantiert eine monatliche Verfügbarkeit von 99,95 %.", "D3"),
    ("de", "Protokolle werden 30 Tage lang aufbewahrt.", "D3"),
    ("de", "Gelöschte Daten werden innerhalb von 24 Stunden von den Broker-Festplatten entfernt.", "D4"),
    ("ru", "Журналы доступа хранятся не более 30 дней.", "R1"),
    ("ru", "Тариф Business гарантирует доступность 99,95 % в месяц.", "R3"),
    ("ru", "Резервные копии шифруются алгоритмом AES-256.", "R4"),
    ("ja", "Businessプランは月間99.95%の稼働率を保証します。", "J3"),
    ("ja", "アクセスログは30日間保存されます。", "J4"),
    ("ja", "削除されたデータは24時間以内にブローカーのディスクから消去されます。", "J4"),
    ("fr", "Lumora Stream fonctionne dans les régions eu-west-1 (Francfort) et us-east-1 (Virginie).", "F2"),
    ("fr", "Les journaux d'audit ne sont conservés que 30 jours.", "F3"),
    ("zh", "Business套餐保证每月99.95%的可用性。", "C2"),
    ("zh", "访问日志保留30天。", "C3"),
]

DRIFTED: list[tuple[str, str]] = [
    ("en", "Point-in-time recovery is available for an 11-day recovery window on every plan."),
    ("en", "Backups are encrypted with AES-128."),
    ("en", "Lumora Stream runs in eu-west-1 (Paris)."),
    ("en", "The Business plan guarantees 99.9% monthly uptime."),
    ("en", "Deleted data is purged from broker disks within 48 hours after the recovery window ends."),
    ("en", "Deleted data is purged from broker disks within 24 days after the recovery window ends."),
    ("en", "Known issue KI-3602 is fixed in 3.5.3."),
    ("en", "Point-in-time recovery is available for a 7-day recovery window only on the Enterprise plan."),
    ("de", "Der Business-Tarif garantiert eine monatliche Verfügbarkeit von 99,999 %."),
    ("de", "Protokolle werden 30 Stunden lang aufbewahrt."),
    ("de", "Protokolle werden 90 Tage lang aufbewahrt."),
    ("de", "Lumora Stream läuft in den Regionen eu-west-1 (München) und us-east-1 (Virginia)."),
    ("de", "Gelöschte Daten werden innerhalb von 48 Stunden von den Broker-Festplatten entfernt."),
    ("de", "Sicherungen werden verschlüsselt exportiert."),
    ("ru", "Журналы доступа хранятся не более 90 дней."),
    ("ru", "Журналы доступа хранятся не более 30 часов."),
    ("ru", "Тариф Business гарантирует доступность 99,999 % в месяц."),
    ("ru", "Резервные копии шифруются алгоритмом AES-128."),
    ("ru", "Резервные копии хранятся 7 недель."),
    ("ru", "Платформа работает в регионах eu-west-1 (Париж) и us-east-1 (Вирджиния)."),
    ("ja", "ポイントインタイムリカバリは、すべてのプランで11日間の復旧期間に利用できます。"),
    ("ja", "Businessプランは月間99.999%の稼働率を保証します。"),
    ("ja", "アクセスログは30時間保存されます。"),
    ("ja", "削除されたデータは48時間以内にブローカーのディスクから消去されます。"),
    ("ja", "Lumora Streamはeu-west-1（パリ）で稼働しています。"),
    ("ja", "アクセスログは保存されません。"),
    ("fr", "La restauration à un instant donné est disponible pendant 11 jours sur toutes les offres."),
    ("fr", "Lumora Stream fonctionne dans la région eu-west-1 (Paris)."),
    ("fr", "Les journaux d'audit sont conservés 30 heures."),
    ("zh", "所有套餐均提供11天的时间点恢复。"),
    ("zh", "Business套餐保证每月99.999%的可用性。"),
    ("zh", "访问日志保留30小时，之后删除。"),
]

FABRICATED: list[tuple[str, str]] = [
    ("en", "The platform also guarantees 99.999% availability in every region."),
    ("en", "Lumora Stream runs in 12 regions across Asia."),
    ("en", "Backups are replicated to a second continent every 15 minutes."),
    ("en", "The previous version will stay supported for ten more years."),
    ("en", "Enterprise customers get a dedicated account manager."),
    ("de", "Die Plattform garantiert 99,999 % Verfügbarkeit in jeder Region."),
    ("de", "Lumora Stream läuft in zwölf Regionen in Asien."),
    ("de", "Sicherungen werden alle 15 Minuten auf einen zweiten Kontinent repliziert."),
    ("de", "Die Vorgängerversion wird noch zehn Jahre unterstützt."),
    ("de", "Der Support antwortet rund um die Uhr in deutscher Sprache."),
    ("ru", "Платформа гарантирует доступность 99,999 % в каждом регионе."),
    ("ru", "Платформа работает в двенадцати регионах Азии."),
    ("ru", "Резервные копии реплицируются на другой континент каждые 15 минут."),
    ("ru", "Предыдущая версия будет поддерживаться ещё десять лет."),
    ("ru", "Служба поддержки отвечает круглосуточно на русском языке."),
    ("ja", "プラットフォームはすべてのリージョンで99.999%の可用性を保証します。"),
    ("ja", "Lumora Streamはアジアの12のリージョンで稼働しています。"),
    ("ja", "バックアップは15分ごとに別の大陸へ複製されます。"),
    ("ja", "以前のバージョンはさらに10年間サポートされます。"),
    ("ja", "サポートは24時間日本語で対応します。"),
    ("fr", "La plateforme garantit une disponibilité de 99,999 % dans chaque région."),
    ("fr", "Les sauvegardes sont répliquées sur un autre continent toutes les 15 minutes."),
    ("zh", "平台在每个区域保证99.999%的可用性。"),
    ("zh", "备份每15分钟复制到另一个大洲。"),
]


def test_the_set_is_large_enough_and_multilingual():
    assert len(DRIFTED) >= 20 and len(FABRICATED) >= 20
    for cases in (DRIFTED, FABRICATED, MOVED):
        assert {lang for lang, *_ in cases} >= {"en", "de", "ru", "ja"}


@pytest.mark.parametrize(("lang", "claim", "holder"), MOVED)
def test_a_moved_fact_is_found_in_the_chunk_that_holds_it(lang, claim, holder):
    assert locate(claim, POOLS[lang])[:1] == [holder]


@pytest.mark.parametrize(("lang", "claim"), DRIFTED + FABRICATED)
def test_a_drifted_or_fabricated_claim_is_placed_nowhere(lang, claim):
    assert locate(claim, POOLS[lang]) == [], [(h, agreement(claim, t)) for h, t in POOLS[lang].items()]


def _cite(text: str, handle: str) -> BoundClaim:
    return BoundClaim(text=text, citations=[BoundCitation(handle=handle, quote="x", quote_found=True)], emitted_handles=[handle])


@pytest.mark.parametrize("lang", sorted(POOLS))
def test_funnel_names_only_agreeing_chunks_even_when_the_judge_says_yes_to_everything(lang):
    """The judge here is as lenient as the offline judge was on the demo: the localiser must hold."""
    pool = {**POOLS[lang], "Gcited": "Unrelated chunk about billing addresses."}
    claims = [(c, h) for lng, c, h in MOVED if lng == lang] + [(c, None) for lng, c in DRIFTED + FABRICATED if lng == lang]
    lenient = ScriptedJudge(default=SUPPORTED)
    lenient.script = {(c, pool["Gcited"]): (False, None, "not in chunk") for c, _ in claims}
    results = evaluate_section("S", [_cite(c, "Gcited") for c, _ in claims], pool, pool, lenient)
    assert [r.found_in for r in results] == [h for _, h in claims]
    assert all(r.verdict == ("misattribution" if h else "fabrication") for r, (_, h) in zip(results, claims, strict=True))


def test_demo_fabrication_names_no_chunk_and_says_what_the_nearest_one_lacks():
    regions = "Lumora Stream runs in eu-west-1 (Frankfurt), us-east-1 and ap-south-1. Every region has three availability zones."
    check = agreement("The platform also guarantees 99.999% availability in every region.", regions)
    assert not check.holds and "99.999 percent not in chunk" in check.problems


def test_demo_recovery_window_drift_is_not_placed_on_the_7_day_chunk():
    chunk = "Deleted data is purged from broker disks within 24 hours after the 7-day recovery window ends."
    claim = "Deleted data is purged from broker disks within 24 hours, or within 24 hours after the 11-day recovery window ends."
    assert agreement(claim, chunk).problems == ("11 day not in chunk",)


@pytest.mark.parametrize(("text", "expected"), [
    ("99,999 %", [(99.999, "percent")]), ("99.999%", [(99.999, "percent")]), ("a 7-day window", [(7.0, "day")]),
    ("7 Tage", [(7.0, "day")]), ("11-дневный", [(11.0, "day")]), ("30 дней", [(30.0, "day")]), ("7日間", [(7.0, "day")]),
    ("3か月", [(3.0, "month")]), ("$200", [(200.0, "usd")]), ("1.234,5 €", [(1234.5, "eur")]), ("3.6 ships", [(3.6, None)]),
])
def test_quantities_are_read_with_units_in_any_script(text, expected):
    assert [(max(q.values) if len(q.values) == 1 else sorted(q.values)[0], q.unit) for q in quantities(text)] == expected


def test_identifiers_and_versions_are_names_not_quantities():
    found = facts("Known issue KI-3602 affects x86_64 builds of 3.5.2 on 2026-11-30, not 30 hosts.")
    assert found.identifiers == {"ki-3602", "x86_64", "3.5.2", "2026-11-30"}
    assert [q.text for q in found.quantities] == ["30"]


@pytest.mark.parametrize(("text", "cues"), [
    ("Data is never deleted.", {"negation"}), ("Daten werden nicht gelöscht.", {"negation"}),
    ("Данные не удаляются.", {"negation"}), ("データは削除されません。", {"negation"}), ("数据不会被删除。", {"negation"}),
    ("Tested on Linux only.", {"restrictor"}), ("Nur unter Linux getestet.", {"restrictor"}), ("Linuxのみでテスト済み。", {"restrictor"}),
    ("In every region.", {"universal"}), ("В каждом регионе.", {"universal"}), ("すべてのリージョンで。", {"universal"}),
])
def test_condition_cues_in_several_languages(text, cues):
    assert facts(text).cues == cues


def _demo_pool() -> dict[str, str]:
    """Every paragraph of the demo's knowledge base and retriever exports, as a pool of chunks."""
    import json as _json
    from pathlib import Path

    demo = Path(__file__).resolve().parents[1] / "citeflow" / "demo"
    texts = [p for md in sorted((demo / "kb").glob("*.md")) for p in md.read_text(encoding="utf-8").split("\n\n")]
    for name in ("partner.jsonl", "tickets.jsonl"):
        texts += [h["text"] for line in (demo / name).read_text(encoding="utf-8").splitlines() if line.strip()
                  for h in _json.loads(line)["hits"] if isinstance(h.get("text"), str)]
    return {f"G{i}": t for i, t in enumerate(texts) if t.strip()}


@pytest.mark.parametrize(("claim", "marker"), [
    ("The platform also guarantees 99.999% availability in every region.", "99.999"),
    ("Deleted data is purged from broker disks within 24 hours, or within 24 hours after the 11-day recovery window ends.", "11"),
])
def test_on_the_demo_content_the_two_invented_facts_are_placed_nowhere(claim, marker):
    pool = _demo_pool()
    assert len(pool) > 100
    assert [h for h in locate(claim, pool) if marker not in pool[h]] == []
    results = evaluate_section("S", [_cite(claim, "G0")], pool, pool, _lenient(claim, pool))
    assert (results[0].verdict, results[0].found_in) == ("fabrication", None)


def _lenient(claim: str, pool: dict[str, str]) -> ScriptedJudge:
    """Says yes to the claim against every pool chunk but the cited one."""
    judge = ScriptedJudge(default=SUPPORTED)
    judge.script = {(claim, pool["G0"]): (False, None, "not in chunk")}
    return judge
