package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockManager;
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
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

/**
 * The admin page in headless Chromium behind Spring Security's defaults, the setup docs/spring-boot.md asks for: no
 * security configuration of the application's own, so its form login and its CSRF protection on every POST. An
 * operator signs in on Spring's login page and aborts a lock from the page; Spring's CSRF filter lets the action through
 * because the page sends Spring's token as well as its own.
 */
class SecuredAdminPageBrowserTest {
    private static final String CHROMIUM = System.getProperty("lockmanager.chromium", "/usr/bin/chromium");
    private static final String DRIVER = System.getProperty("lockmanager.chromedriver", "/usr/bin/chromedriver");
    /** Held, as JUL keeps loggers weakly: Selenium warns that it has no DevTools for this Chromium, which is unused. */
    private static final java.util.logging.Logger SELENIUM_LOG = java.util.logging.Logger.getLogger("org.openqa.selenium");

    private final ExecutorService threads = Executors.newCachedThreadPool();
    private ConfigurableApplicationContext context;
    private ChromeDriver browser;
    private WebDriverWait wait;
    private Path profile;

    @BeforeAll
    static void quietSelenium() {
        SELENIUM_LOG.setLevel(java.util.logging.Level.SEVERE);
    }

    @BeforeEach
    void start() throws Exception {
        assumeThat(new File(CHROMIUM).canExecute() && new File(DRIVER).canExecute())
                .as("headless Chromium and its driver: apt-get install chromium chromium-driver (as .ci/run does), or "
                        + "name them with -Dlockmanager.chromium=... -Dlockmanager.chromedriver=...").isTrue();
        context = BootApps.start(SecuredApp.class, WebApplicationType.SERVLET,
                BootApps.postgres(BootApps.clientId(), "secured-node"),
                "server.port=0",
                "server.address=127.0.0.1",
                "lockmanager.admin.enabled=true",
                "lockmanager.admin.actions-enabled=true",
                "spring.security.user.name=operator",
                "spring.security.user.password=correct-horse");
        profile = Files.createTempDirectory("lockmanager-chromium");
        ChromeOptions options = new ChromeOptions().setBinary(CHROMIUM).addArguments("--headless=new", "--no-sandbox",
                "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage", "--window-size=1440,900",
                "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(new File(DRIVER))
                .usingAnyFreePort().build();
        browser = new ChromeDriver(service, options);
        wait = new WebDriverWait(browser, Duration.ofSeconds(30));
        wait.ignoring(StaleElementReferenceException.class);
    }

    @AfterEach
    void stop() throws Exception {
        if (browser != null) {
            browser.quit();
        }
        threads.shutdownNow();
        if (context != null) {
            context.close();
        }
        if (profile != null) {
            try (var files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).map(Path::toFile).forEach(File::delete);
            }
        }
    }

    @Test
    void anOperatorSignsInOnSpringsLoginPageAndAbortsALock() throws Exception {
        LockManager manager = context.getBean(LockManager.class);
        CountDownLatch entered = new CountDownLatch(1);
        Future<String> holder = threads.submit(() -> {
            try (var ignored = manager.lock("order-77")) {
                return BootApps.blockUntilInterrupted(entered);
            }
        });
        assertThat(entered.await(30, TimeUnit.SECONDS)).isTrue();
        String base = "http://127.0.0.1:" + ((WebServerApplicationContext) context).getWebServer().getPort();

        browser.get(base + "/lockmanager/");
        // Spring Security's own login page: the application configured nothing
        wait.until(ExpectedConditions.presenceOfElementLocated(By.id("username"))).sendKeys("operator");
        browser.findElement(By.id("password")).sendKeys("correct-horse");
        browser.findElement(By.cssSelector("button[type=submit]")).click();
        wait.until(d -> d.findElements(By.cssSelector("#locks tbody tr[data-key]")).stream()
                .anyMatch(r -> "order-77".equals(r.getDomAttribute("data-key"))));

        wait.until(d -> {
            abortButton("order-77").click();
            return true;
        });
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(ExpectedConditions.textToBePresentInElementLocated(By.id("message"),
                "Abort asked of the holders of 'order-77'"));
        screenshot("admin-page-spring-security-aborted");
        assertThat(browser.findElement(By.id("message")).getText()).doesNotContain("403").doesNotContain("CSRF");
        assertThat(holder.get(30, TimeUnit.SECONDS)).as("the holder was stopped").isEqualTo("interrupted");
    }

    private WebElement abortButton(String key) {
        return browser.findElements(By.cssSelector("#locks tbody tr[data-key]")).stream()
                .filter(r -> key.equals(r.getDomAttribute("data-key"))).findFirst()
                .orElseThrow(() -> new AssertionError("no row for key " + key))
                .findElement(By.cssSelector("button.abort"));
    }

    private void screenshot(String name) throws Exception {
        Path target = Path.of("target", "screenshots", name + ".png");
        Files.createDirectories(target.getParent());
        Files.write(target, browser.getScreenshotAs(OutputType.BYTES));
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import(ActuatorAndAdminPageTest.Worker.class)
    static class SecuredApp {
    }
}
