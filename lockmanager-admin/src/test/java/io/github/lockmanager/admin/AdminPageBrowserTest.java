package io.github.lockmanager.admin;

import io.github.lockmanager.LockSpec;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.testing.support.InstrumentedStore;
import io.github.lockmanager.testing.support.ManualTimeSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.awaitility.Awaitility.await;

/**
 * The admin page in headless Chromium (Debian's {@code chromium} and {@code chromium-driver}; {@code .ci/run} installs
 * them), on locks of two nodes on PostgreSQL. Screenshots land in {@code target/screenshots}.
 */
class AdminPageBrowserTest extends AdminFixture {
    private static final String CHROMIUM = System.getProperty("lockmanager.chromium", "/usr/bin/chromium");
    private static final String DRIVER = System.getProperty("lockmanager.chromedriver", "/usr/bin/chromedriver");
    private static final String XSS_KEY = "<img src=x onerror=\"document.title='pwned'\">";

    private ChromeDriver browser;
    private WebDriverWait wait;
    private LockAdminServer server;
    private Path profile;

    /** Held, as JUL keeps loggers weakly: Selenium warns that it has no DevTools for this Chromium, which is unused. */
    private static final java.util.logging.Logger SELENIUM_LOG = java.util.logging.Logger.getLogger("org.openqa.selenium");

    @BeforeAll
    static void quietSelenium() {
        SELENIUM_LOG.setLevel(java.util.logging.Level.SEVERE);
    }

    @BeforeEach
    void openBrowser() throws Exception {
        assumeThat(new File(CHROMIUM).canExecute() && new File(DRIVER).canExecute())
                .as("headless Chromium and its driver: apt-get install chromium chromium-driver (as .ci/run does), or "
                        + "name them with -Dlockmanager.chromium=... -Dlockmanager.chromedriver=...").isTrue();
        profile = Files.createTempDirectory("lockmanager-chromium");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM).addArguments("--headless=new", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--window-size=1440,900",
                "--user-data-dir=" + profile);
        // the driver is named, so Selenium Manager never looks for (or downloads) one
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(DRIVER))
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        // the page renders its rows anew on every refresh (each 5 s, and after each action): a row found just before
        // is then gone, and whatever read it is tried again on the new one
        wait.ignoring(StaleElementReferenceException.class);
    }

    @AfterEach
    void closeBrowser() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        if (server != null) {
            server.close();
        }
        if (profile != null) {
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    @Test
    void anOperatorSeesBothNodesFiltersSignsInAndAbortsALock() throws Exception {
        LockManager a = node("node-a");
        LockManager b = node("node-b");
        Instant firstTaken = Instant.now();
        hold(a, "nightly-report");
        // the report has run for 3 s when the rest is taken, so only it is held too long on the page's frozen clock
        await().atMost(Duration.ofSeconds(10)).until(() -> Instant.now().isAfter(firstTaken.plusSeconds(3)));
        Holder order = hold(a, "order-1042");
        hold(a, "order-1043");
        hold(b, "invoice-2026-0917");
        hold(b, XSS_KEY);
        hold(() -> a.lock(LockSpec.permits("partner-api", 3)));
        // a fair wait of node-b's for a key node-a holds: shown under the locks, not as one
        b.lockForTaskAsync(LockSpec.of("order-1043").fair(true), Duration.ofMinutes(5),
                io.github.lockmanager.TaskOptions.named("reindex"));
        await().atMost(Duration.ofSeconds(30)).until(() -> b.getWaiters().size() == 1);
        LockAdmin admin = admin().heldTooLongThreshold(Duration.ofSeconds(2))
                .timeSource(new ManualTimeSource(Instant.now())).build();
        server = LockAdminServer.builder(admin).port(0).actionsFor("operator", "correct horse").start();
        String base = "http://127.0.0.1:" + server.port() + "/";

        browser.get(base);
        awaitRows(6);
        assertThat(column(4)).contains("node-a", "node-b");
        assertThat(rowText("partner-api")).contains("permit (of 3)");
        assertThat(rowText("nightly-report")).contains("held too long");
        assertThat(rowText("order-1042")).doesNotContain("held too long");
        // the key is shown as the text it is: no element was made of it and its handler never ran
        assertThat(stable(() -> row(XSS_KEY).findElement(By.cssSelector("td.key")).getText())).isEqualTo(XSS_KEY);
        assertThat(browser.findElements(By.cssSelector("#locks img"))).isEmpty();
        wait.until(d -> d.findElements(By.cssSelector("#waiters tbody tr")).size() == 1);
        assertThat(browser.findElement(By.id("waiting")).isDisplayed()).isTrue();
        assertThat(browser.findElement(By.cssSelector("#waiters tbody tr")).getText())
                .contains("order-1043", "exclusive", "node-b", "task:reindex");
        assertThat(browser.findElement(By.id("waiting-summary")).getText()).isEqualTo("1 waiter");
        assertThat(browser.getTitle()).isEqualTo("Locks · lockmanager");
        screenshot("admin-page");

        selectNode("node-b");
        awaitRows(2);
        assertThat(column(4)).containsOnly("node-b");
        selectNode("");
        browser.findElement(By.id("prefix")).sendKeys("order-");
        awaitRows(2);
        assertThat(column(1)).containsExactly("order-1042", "order-1043");
        screenshot("admin-page-filtered");

        // not signed in: the buttons are off, and the server refuses the action anyway
        assertThat(stable(() -> abortButton("order-1042").isEnabled())).isFalse();
        Object status = browser.executeAsyncScript("const done = arguments[arguments.length - 1];"
                + "fetch('actions/abort', {method: 'POST', headers: {'Content-Type': 'application/x-www-form-urlencoded'},"
                + " body: 'key=order-1042&level=DC'}).then(r => done(r.status), e => done(String(e)));");
        assertThat(status).isEqualTo(401L);
        assertThat(order.interrupted).isNotDone();

        browser.findElement(By.id("sign-in-link")).click();
        browser.findElement(By.id("user")).sendKeys("operator");
        browser.findElement(By.id("password")).sendKeys("correct horse");
        screenshot("sign-in");
        browser.findElement(By.id("sign-in")).click();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("account"), "Signed in as operator"));
        browser.findElement(By.id("prefix")).sendKeys("order-");
        awaitRows(2);

        stable(() -> {
            abortButton("order-1042").click();
            return true;
        });
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        order.interrupted.get(20, TimeUnit.SECONDS);
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
                "Abort asked of the holders of 'order-1042'"));
        wait.until(d -> row("order-1042").getText().contains("abort asked"));
        assertThat(rowText("order-1043")).contains("running");
        screenshot("admin-page-aborted");
    }

    @Test
    void aStoreThatCannotBeReachedShowsAsSuchAndThePageRecoversWhenItIsBack() throws Exception {
        hold(node("node-a"), "order-1");
        InstrumentedStore cut = new InstrumentedStore(store);
        cut.setUnreachable(true);
        server = LockAdminServer.builder(LockAdmin.builder(cut).clientId(client).snapshotTtl(Duration.ZERO).build())
                .port(0).start();

        browser.get("http://127.0.0.1:" + server.port() + "/");
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("summary"),
                "The locks could not be loaded"));
        assertThat(browser.findElement(By.id("summary")).getText()).doesNotContain("Loading")
                .contains("trying again every 5 s");
        assertThat(browser.findElement(By.id("message")).getAttribute("class")).isEqualTo("error");

        cut.setUnreachable(false);
        awaitRows(1);
        wait.until(ExpectedConditions.invisibilityOfElementLocated(By.id("message")));
    }

    private void awaitRows(int count) {
        wait.until(d -> d.findElements(By.cssSelector("#locks tbody tr[data-key]")).size() == count);
    }

    /**
     * What {@code read} returns, read again if the rows it looked at were rendered anew meanwhile ({@link #wait}
     * ignores that failure); {@code false} and {@code null} are answers here, not reasons to wait.
     */
    private <T> T stable(Supplier<T> read) {
        return wait.until(d -> Optional.ofNullable(read.get())).orElse(null);
    }

    /** Picks a node in the filter, whose options the page also makes anew from each answer. */
    private void selectNode(String node) {
        stable(() -> {
            new Select(browser.findElement(By.id("node"))).selectByValue(node);
            return true;
        });
    }

    private String rowText(String key) {
        return stable(() -> row(key).getText());
    }

    private WebElement abortButton(String key) {
        return row(key).findElement(By.cssSelector("button.abort"));
    }

    private WebElement row(String key) {
        return browser.findElements(By.cssSelector("#locks tbody tr[data-key]")).stream()
                .filter(r -> key.equals(r.getDomAttribute("data-key"))).findFirst()
                .orElseThrow(() -> new AssertionError("no row for key " + key));
    }

    /** The texts of one column (1-based) of the rows shown. */
    private List<String> column(int index) {
        return stable(() -> browser.findElements(By.cssSelector("#locks tbody tr[data-key] td:nth-child(" + index
                + ")")).stream().map(WebElement::getText).toList());
    }

    private void screenshot(String name) throws Exception {
        Path target = Path.of("target", "screenshots", name + ".png");
        Files.createDirectories(target.getParent());
        Files.write(target, browser.getScreenshotAs(OutputType.BYTES));
    }
}
