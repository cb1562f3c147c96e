"""The web UI in a real Chromium against a live server, real PostgreSQL, Redis, Hive Metastore, Spark and a worker.

Each test signs in through the login form and uses only what a user sees; screenshots of every main screen
at 1280×800 and 390×844 land in test-artifacts/screenshots/.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect

from catalogs.types import CATALOG_TYPES
from tests.e2e.conftest import DESKTOP, PASSWORD, PG_PASSWORD, PHONE, Browser, table_button

pytestmark = [pytest.mark.e2e, pytest.mark.django_db(transaction=True)]

SPARK_WAIT = 240_000  # ms; a safety net for a cold Spark on 2 shared cores, not a performance claim


def fits_width(page: Any) -> bool:
    """True when the page needs no horizontal scrolling at the current viewport width."""
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")


def new_catalog_form(b: Browser, name: str, catalog_type: str, description: str) -> None:
    b.page.get_by_role("navigation", name="Sections").get_by_role("link", name="Catalogs").click()
    b.page.get_by_role("link", name="New catalog").click()
    b.page.locator("#catalog-name").fill(name)
    b.page.locator("#catalog-type").select_option(catalog_type)
    b.page.locator("#catalog-description").fill(description)


def check_connection(b: Browser, button: str = "Test connection") -> None:
    b.page.get_by_role("button", name=button).click()
    result = b.page.get_by_test_id("connection-result")
    expect(result).to_contain_text("Connected", timeout=60_000)
    expect(result).to_contain_text(re.compile(r"in \d+(\.\d+)? (ms|s)"))




def type_in_editor(b: Browser, text: str) -> None:
    b.page.keyboard.type(text, delay=15)


def new_script(b: Browser, text: str) -> None:
    """Open the SQL editor on a new script holding `text` (inserted at once, completion closed)."""
    b.page.get_by_role("navigation", name="Sections").get_by_role("link", name="SQL").click()
    b.page.get_by_role("button", name="New script").click()
    b.page.locator(".cm-content").click()
    b.page.keyboard.insert_text(text)
    b.page.keyboard.press("Escape")


def pick_completion(b: Browser, label: str) -> None:
    """Wait for the completion popup to offer `label` and choose it with the mouse."""
    option = b.page.locator(".cm-tooltip-autocomplete li", has=b.page.locator(".cm-completionLabel", has_text=re.compile(f"^{label}$")))
    expect(option.first).to_be_visible(timeout=30_000)
    option.first.click()


def test_admin_creates_catalogs_browses_and_runs_sql(
    browser: Browser, team: Any, make_user: Any, sales_db: Any, delta_warehouse: Path, hive_metastore: Any,
    hive_table: str, celery_worker: Any,
) -> None:
    make_user("ada", team, "admin")
    make_user("dan")  # not in a team yet: added on the members page
    b, page = browser, browser.page

    b.sign_in("ada")
    expect(page).to_have_url(re.compile(r"/t/acme/catalogs$"))
    expect(page.get_by_test_id("role-badge")).to_have_text("admin")
    expect(page.get_by_label("Team")).to_have_value("acme")
    expect(page.get_by_role("heading", name="No catalogs yet")).to_be_visible()
    b.shot("catalogs-empty")

    # ---- JDBC: a wrong URL first, whose error the API reports next to the field ----
    new_catalog_form(b, "sales_pg", "jdbc", "Sales in PostgreSQL")
    page.locator("#cfg-type").select_option("postgresql")
    page.get_by_label("Base URL").fill("http://127.0.0.1:5432/")
    page.get_by_label("Default database").fill(sales_db.name)
    page.get_by_label("Username").fill("postgres")
    page.locator("#cfg-password").fill(PG_PASSWORD)
    b.console.expect_failed("/api/v1/teams/acme/catalogs/", 400)
    page.get_by_role("button", name="Create catalog").click()
    expect(page.locator("#cfg-base-url-errors")).to_contain_text("base-url must start with jdbc:postgresql://")
    expect(page.get_by_label("Base URL")).to_have_attribute("aria-invalid", "true")
    b.shot("catalog-form-error")
    page.get_by_label("Base URL").fill("jdbc:postgresql://127.0.0.1:5432/")
    # the error answered the old value: editing the field takes it away
    expect(page.locator("#cfg-base-url-errors")).to_have_count(0)
    expect(page.get_by_label("Base URL")).not_to_have_attribute("aria-invalid", "true")
    check_connection(b)
    b.shot("catalog-form-jdbc")
    page.get_by_role("button", name="Create catalog").click()
    expect(page).to_have_url(re.compile(r"/t/acme/catalogs/sales_pg$"))
    config = page.get_by_test_id("catalog-configuration")
    expect(config).to_contain_text("jdbc:postgresql://127.0.0.1:5432/")
    expect(config.locator(".prop-row", has_text="password")).to_contain_text("set")
    check_connection(b)
    expect(page.get_by_test_id("catalog-history")).to_contain_text("create")
    expect(page.get_by_test_id("catalog-history")).to_contain_text("ada")
    b.shot("catalog-detail")

    # editing keeps the stored password: the form shows it as "set" and offers to replace it, never its value
    page.get_by_role("link", name="Edit").click()
    expect(page.get_by_test_id("secret-set-password")).to_have_text("set")
    expect(page.get_by_role("button", name="Replace Password")).to_be_visible()
    page.locator("#catalog-description").fill("Sales in PostgreSQL (orders by region)")
    page.get_by_role("button", name="Save changes").click()
    expect(page).to_have_url(re.compile(r"/t/acme/catalogs/sales_pg$"))
    expect(page.get_by_test_id("catalog-history")).to_contain_text("description")
    check_connection(b)  # still connects with the password it kept
    assert PG_PASSWORD not in page.content()

    # ---- Hive on the session's metastore ----
    new_catalog_form(b, "warehouse_hive", "hive", "Hive Metastore")
    page.get_by_label("Metastore URIs").fill("thrift://127.0.0.1:1")  # nothing listens there
    page.get_by_role("button", name="Test connection").click()
    failed = page.get_by_test_id("connection-result")
    expect(failed).to_contain_text("Connection failed", timeout=60_000)
    expect(failed).to_contain_text("127.0.0.1:1")
    expect(failed).to_contain_text(re.compile(r"in \d+(\.\d+)? (ms|s)"))
    b.shot("catalog-form-test-failed")
    page.get_by_label("Metastore URIs").fill(hive_metastore.uri)
    check_connection(b)
    b.shot("catalog-form-hive")
    page.get_by_role("button", name="Create catalog").click()
    expect(page).to_have_url(re.compile(r"/t/acme/catalogs/warehouse_hive$"))

    # ---- Delta on a local warehouse ----
    new_catalog_form(b, "lake_delta", "delta", "Trips in Delta")
    page.get_by_label("Warehouse").fill(str(delta_warehouse))
    check_connection(b)
    b.shot("catalog-form-delta")
    page.get_by_role("button", name="Create catalog").click()
    expect(page).to_have_url(re.compile(r"/t/acme/catalogs/lake_delta$"))

    # ---- the list: type, name, description, last change and who made it; filters ----
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Catalogs").click()
    rows = page.get_by_role("table", name="Catalogs").locator("tbody tr")
    expect(rows).to_have_count(3)
    expect(rows.filter(has_text="sales_pg")).to_contain_text("Sales in PostgreSQL (orders by region)")
    expect(rows.filter(has_text="sales_pg")).to_contain_text("ada")
    b.shot("catalogs")
    page.get_by_label("Type").select_option("delta")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("lake_delta")
    page.get_by_label("Type").select_option("")
    page.get_by_label("Name starts with").fill("sal")
    expect(rows).to_have_count(1)
    expect(rows.first).to_contain_text("sales_pg")

    # ---- metadata browser: catalog → database → table → columns, loaded as opened ----
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Browse").click()
    tree = page.get_by_test_id("metadata-tree")
    tree.get_by_role("button", name="sales_pg", exact=True).click()
    tree.get_by_role("button", name="public", exact=True).click()
    tree.get_by_role("button", name=table_button("sales")).click()
    columns = page.get_by_test_id("columns-table")
    expect(columns).to_contain_text("region")
    expect(columns.locator("tr", has_text="amount")).to_contain_text("int")
    expect(columns.locator("tr", has_text="region")).to_contain_text("no")  # NOT NULL
    tree.get_by_role("button", name="lake_delta", exact=True).click()
    tree.get_by_role("button", name="lake", exact=True).click()
    tree.get_by_role("button", name=table_button("trips")).click()
    expect(columns.locator("tr", has_text="city")).to_contain_text("partition")
    expect(page.get_by_test_id("table-details")).to_contain_text("version 0")
    tree.get_by_role("button", name="warehouse_hive", exact=True).click()
    tree.get_by_role("button", name="e2e_hive", exact=True).click()
    tree.get_by_role("button", name=table_button("events")).click()
    expect(columns.locator("tr", has_text="day")).to_contain_text("partition")
    b.shot("browse")
    page.get_by_label("Search").fill("trip")
    expect(tree.get_by_role("button", name=table_button("trips"))).to_be_visible()
    expect(tree.get_by_role("button", name=table_button("sales"))).to_have_count(0)
    expect(tree.get_by_role("button", name=table_button("events"))).to_have_count(0)
    page.get_by_label("Search").fill("")

    # ---- SQL editor: completion from the metadata API, live validation, preview ----
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="SQL").click()
    editor = page.locator(".cm-content")
    editor.click()
    type_in_editor(b, "SELECT region, amount FROM sales_")
    pick_completion(b, "sales_pg")
    type_in_editor(b, ".")
    pick_completion(b, "public")
    type_in_editor(b, ".sa")
    pick_completion(b, "sales")
    type_in_editor(b, " ORDER BY amo")
    pick_completion(b, "amount")  # a column of the table the query names
    type_in_editor(b, " DESC")
    page.keyboard.press("Escape")
    expect(editor).to_have_text("SELECT region, amount FROM sales_pg.public.sales ORDER BY amount DESC")
    # syntax highlighting: keywords are drawn in a different colour from identifiers
    keyword = editor.locator("span", has_text=re.compile("^SELECT$")).last
    assert keyword.evaluate("e => getComputedStyle(e).color") != editor.evaluate("e => getComputedStyle(e).color")
    expect(page.get_by_test_id("validation-status")).to_have_text("✓ Valid", timeout=SPARK_WAIT)
    page.get_by_role("button", name="Preview").click()
    preview = page.get_by_role("region", name="Preview rows")
    expect(preview.get_by_test_id("result-grid")).to_contain_text("east", timeout=SPARK_WAIT)
    first_row = preview.get_by_test_id("result-grid").locator("tbody tr").first
    expect(first_row).to_contain_text("east")
    expect(preview).to_contain_text("4 rows")
    b.shot("sql-preview")
    preview.get_by_role("tab", name="Chart").click()
    expect(preview.get_by_test_id("result-chart").locator("rect.chart-bar")).to_have_count(4)
    preview.get_by_text("Line", exact=True).click()
    expect(preview.get_by_test_id("result-chart").locator("polyline")).to_have_count(1)
    b.shot("sql-chart")

    # ---- Run: submits a job run, the run page follows it to the end and shows the rows ----
    page.get_by_label("Job name").fill("sales by region")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page).to_have_url(re.compile(r"/t/acme/runs/\d+$"))
    expect(page.get_by_test_id("run-status")).to_contain_text("Succeeded", timeout=SPARK_WAIT)
    result = page.get_by_role("region", name=re.compile(r"Rows of run \d+"))
    grid = result.get_by_test_id("result-grid")
    expect(grid.locator("tbody tr")).to_have_count(4)
    expect(grid.locator("tbody tr").first).to_contain_text("east")
    grid.get_by_role("button", name=re.compile("^amount")).click()  # sort ascending by amount
    expect(grid.locator("tbody tr").first).to_contain_text("west")
    expect(page.get_by_test_id("run-log")).to_contain_text("Statement 1 succeeded")
    expect(page.get_by_test_id("run-progress")).to_contain_text("1 / 1")
    b.shot("run-succeeded")
    run_url = page.url

    # ---- a failing script: validation marks it while typing, the run page highlights the statement ----
    new_script(b, "SELECT 1 AS one;\nSELECT no_such_column FROM sales_pg.public.sales")
    expect(page.get_by_test_id("validation-status")).to_contain_text("problem", timeout=SPARK_WAIT)
    expect(page.locator(".cm-lintRange-error").first).to_be_visible()
    b.shot("sql-validation")
    page.get_by_label("Job name").fill("broken report")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.get_by_test_id("run-status")).to_contain_text("Failed", timeout=SPARK_WAIT)
    failing = page.get_by_test_id("run-statements").locator("li[data-failing]")
    expect(failing).to_have_count(1)
    expect(failing).to_contain_text("no_such_column")
    expect(failing.locator("mark.error-at")).to_contain_text("no_such_column")
    expect(page.get_by_test_id("run-error")).to_contain_text("no_such_column")
    b.shot("run-failed")

    # ---- an emoji (one character, two string units) and a `;` in a string before the failing statement: the
    # validator's position lands on that statement's first word, not one unit early ----
    new_script(b, "VALUES ('😀;'); SELECT no_such_column FROM sales_pg.public.sales")
    expect(page.get_by_test_id("validation-status")).to_contain_text("problem", timeout=SPARK_WAIT)
    expect(page.locator(".cm-lintRange-error")).to_have_count(1)
    expect(page.locator(".cm-lintRange-error")).to_have_text("SELECT")

    # ---- the default catalog picker: validate and preview resolve a name it does not qualify, as Run does ----
    new_script(b, "SELECT region, amount FROM public.sales ORDER BY amount DESC")
    expect(page.get_by_test_id("validation-status")).to_contain_text("problem", timeout=SPARK_WAIT)
    page.get_by_label("Default catalog").select_option("sales_pg")
    expect(page.get_by_test_id("validation-status")).to_have_text("✓ Valid", timeout=SPARK_WAIT)
    page.get_by_role("button", name="Preview").click()
    preview = page.get_by_role("region", name="Preview rows")
    expect(preview.get_by_test_id("result-grid").locator("tbody tr").first).to_contain_text("east", timeout=SPARK_WAIT)
    page.get_by_label("Default catalog").select_option("")

    # ---- a long query: live status while it runs, then cancel it ----
    new_script(b, "SELECT count(*) AS n FROM range(0, 500000000000, 1, 2) WHERE id % 7 = 3")
    page.get_by_label("Job name").fill("endless count")
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.get_by_test_id("run-status")).to_contain_text("Running", timeout=SPARK_WAIT)
    expect(page.get_by_test_id("run-log")).to_contain_text("Statement 1/1 started", timeout=SPARK_WAIT)
    b.shot("run-running")
    page.get_by_role("button", name="Cancel run").click()
    page.get_by_role("dialog").get_by_role("button", name="Cancel run").click()
    expect(page.get_by_test_id("run-status")).to_contain_text("Cancelled", timeout=SPARK_WAIT)
    expect(page.get_by_role("button", name="Cancel run")).to_have_count(0)

    # ---- runs list: status, duration, who ran it ----
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Runs").click()
    runs = page.get_by_role("table", name="Runs").locator("tbody tr")
    expect(runs).to_have_count(3)
    expect(runs.filter(has_text="sales by region")).to_contain_text("Succeeded")
    expect(runs.filter(has_text="sales by region")).to_contain_text("ada")
    expect(runs.filter(has_text="broken report")).to_contain_text("Failed")
    expect(runs.filter(has_text="endless count")).to_contain_text("Cancelled")
    b.shot("runs")

    # ---- members (team admins) ----
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Members").click()
    page.get_by_label("Username").fill("dan")
    page.get_by_label("Role", exact=True).select_option("viewer")
    page.get_by_role("button", name="Add member").click()
    members = page.get_by_role("table", name="Members").locator("tbody tr")
    expect(members.filter(has_text="dan")).to_have_count(1)
    expect(page.get_by_label("Role of dan")).to_have_value("viewer")
    b.shot("members")

    # ---- delete asks first, then the catalog is gone from the list ----
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Catalogs").click()
    page.get_by_role("link", name="warehouse_hive", exact=True).click()
    page.get_by_role("button", name="Delete").click()
    dialog = page.get_by_role("dialog")
    expect(dialog).to_contain_text("Delete warehouse_hive?")
    b.shot("catalog-delete-confirm")
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_be_hidden()
    page.get_by_role("button", name="Delete").click()
    dialog.get_by_role("button", name="Delete catalog").click()
    expect(page).to_have_url(re.compile(r"/t/acme/catalogs$"))
    expect(page.get_by_role("table", name="Catalogs").locator("tbody tr")).to_have_count(2)
    expect(page.get_by_role("link", name="warehouse_hive")).to_have_count(0)

    # ---- the same screens on a phone: nothing needs sideways scrolling ----
    page.set_viewport_size(PHONE)
    for name, path in [
        ("catalogs", "/t/acme/catalogs"), ("catalog-detail", "/t/acme/catalogs/sales_pg"),
        ("catalog-form-jdbc", "/t/acme/catalogs/sales_pg/edit"), ("browse", "/t/acme/browse"),
        ("sql-editor", "/t/acme/sql"), ("runs", "/t/acme/runs"), ("run-succeeded", run_url.split(b.base_url)[1]),
        ("members", "/t/acme/members"),
    ]:
        b.goto(path)
        expect(page.locator("main h1")).to_be_visible()
        page.wait_for_load_state("networkidle")
        b.shot(name)
        assert fits_width(page), f"{path} scrolls sideways at 390 px"
    page.set_viewport_size(DESKTOP)

    # sign out ends the session: the app asks to sign in again
    page.get_by_role("button", name="Sign out").click()
    expect(page).to_have_url(re.compile(r"/login$"))
    assert b.console.unexpected() == [], b.console.unexpected()


@pytest.mark.parametrize("role", ["viewer", "developer"])
def test_viewers_and_developers_see_no_catalog_write_controls(
    browser: Browser, team: Any, other_team: Any, make_user: Any, role: str
) -> None:
    from catalogs.services import catalog_create

    admin = make_user("ada", team, "admin")
    catalog_create(team=team, actor=admin, data={
        "catalog_name": "lake", "catalog_type": "delta", "description": "shared lake",
        "configuration": {"warehouse": "/tmp/lakeport-e2e-lake"},
    })
    val = make_user("val", team, role)
    b, page = browser, browser.page
    b.sign_in("val")
    expect(page.get_by_test_id("role-badge")).to_have_text(role)
    expect(page.get_by_role("table", name="Catalogs")).to_contain_text("lake")
    expect(page.get_by_role("link", name="New catalog")).to_have_count(0)
    expect(page.get_by_role("navigation", name="Sections").get_by_role("link", name="Members")).to_have_count(0)
    b.shot(f"catalogs-as-{role}")

    page.get_by_role("link", name="lake", exact=True).click()
    expect(page.get_by_test_id("catalog-configuration")).to_contain_text("/tmp/lakeport-e2e-lake")
    expect(page.get_by_role("link", name="Edit")).to_have_count(0)
    expect(page.get_by_role("button", name="Delete")).to_have_count(0)
    # developers may test a saved catalog's connection; viewers may not
    expect(page.get_by_role("button", name="Test connection")).to_have_count(1 if role == "developer" else 0)

    b.goto("/t/acme/catalogs/new")
    expect(page.get_by_role("heading", name="Team admins only")).to_be_visible()
    b.goto("/t/acme/members")
    expect(page.get_by_role("heading", name="Team admins only")).to_be_visible()

    b.goto("/t/acme/sql")
    expect(page.locator(".cm-content")).to_be_visible()
    run_buttons = 1 if role == "developer" else 0
    expect(page.get_by_role("button", name="Run", exact=True)).to_have_count(run_buttons)
    expect(page.get_by_role("button", name="Preview")).to_have_count(run_buttons)
    b.shot(f"sql-as-{role}")

    # the same user is an admin elsewhere: the team switcher shows each team's role and its controls
    from teams.services import membership_set

    membership_set(team=other_team, user=val, role="admin")
    b.goto("/t/acme/catalogs")
    page.get_by_label("Team").select_option("globex")
    expect(page).to_have_url(re.compile(r"/t/globex/catalogs$"))
    expect(page.get_by_test_id("role-badge")).to_have_text("admin")
    expect(page.get_by_role("link", name="New catalog")).to_be_visible()
    expect(page.get_by_role("heading", name="No catalogs yet")).to_be_visible()
    page.get_by_label("Team").select_option("acme")
    expect(page.get_by_test_id("role-badge")).to_have_text(role)
    expect(page.get_by_role("link", name="New catalog")).to_have_count(0)
    assert b.console.unexpected() == [], b.console.unexpected()


def test_a_user_without_a_team_sees_an_empty_state(browser: Browser, make_user: Any) -> None:
    make_user("newbie")
    b, page = browser, browser.page
    b.sign_in("newbie")
    expect(page.get_by_role("heading", name="You are not in a team yet")).to_be_visible()
    expect(page.get_by_text("ask a team admin to add you")).to_be_visible()
    b.shot("no-team")
    page.set_viewport_size(PHONE)
    b.shot("no-team")
    assert fits_width(page)
    assert b.console.unexpected() == [], b.console.unexpected()


def test_wrong_password_is_refused_with_a_message(browser: Browser, make_user: Any) -> None:
    make_user("ada")
    b, page = browser, browser.page
    b.console.expect_failed("/api/v1/auth/login/", 401)
    b.console.expect_failed("/api/v1/auth/login/", 403)
    b.sign_in("ada", password="not-the-password", succeed=False)
    expect(page.get_by_role("alert")).to_contain_text("Wrong username or password")
    expect(page).to_have_url(re.compile(r"/login$"))
    b.shot("login")
    assert b.console.unexpected() == [], b.console.unexpected()


def test_an_ended_session_sends_the_user_to_sign_in(browser: Browser, team: Any, make_user: Any) -> None:
    from django.contrib.sessions.models import Session

    make_user("ada", team, "developer")
    b, page = browser, browser.page
    b.sign_in("ada")
    # the first screen has loaded everything it asks for (its list and the type filter's options)
    expect(page.get_by_role("heading", name="No catalogs yet")).to_be_visible()
    expect(page.locator("#filter-type option")).to_have_count(len(CATALOG_TYPES) + 1)  # "all" and every type
    Session.objects.all().delete()  # the session expires on the server (or is signed out in another tab)
    b.console.expect_failed("/api/v1/teams/acme/runs/", 401)
    b.console.expect_failed("/api/v1/teams/acme/runs/", 403)
    page.get_by_role("navigation", name="Sections").get_by_role("link", name="Runs").click()
    expect(page).to_have_url(re.compile(r"/login\?next=%2Ft%2Facme%2Fruns$"))
    # …and signing in again on that page returns to where the user was going
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page).to_have_url(re.compile(r"/t/acme/runs$"))
    expect(page.get_by_role("heading", name="No runs")).to_be_visible()
    assert b.console.unexpected() == [], b.console.unexpected()


def test_a_stale_edit_is_refused_instead_of_overwriting(browser: Browser, team: Any, make_user: Any) -> None:
    from catalogs.models import Catalog
    from catalogs.services import catalog_create, catalog_update

    admin = make_user("ada", team, "admin")
    catalog_create(team=team, actor=admin, data={
        "catalog_name": "lake", "catalog_type": "delta", "description": "v1",
        "configuration": {"warehouse": "/tmp/lakeport-e2e-lake"},
    })
    b, page = browser, browser.page
    b.sign_in("ada")
    b.goto("/t/acme/catalogs/lake/edit")
    page.locator("#catalog-description").fill("my change")
    # meanwhile someone else saves a change
    catalog_update(team=team, name="lake", actor=admin, data={"description": "their change"}, partial=True)
    b.console.expect_failed("/api/v1/teams/acme/catalogs/lake/", 412)
    page.get_by_role("button", name="Save changes").click()
    expect(page.get_by_role("alert")).to_contain_text("Someone changed this catalog since you opened it")
    assert Catalog.objects.get(team=team, catalog_name="lake").description == "their change"
    page.get_by_role("link", name="Reload it").click()
    expect(page.locator(".props").first).to_contain_text("their change")
    assert b.console.unexpected() == [], b.console.unexpected()
