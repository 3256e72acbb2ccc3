package io.github.lockmanager.it.docs;

import io.github.lockmanager.store.jdbc.DatabaseAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.sql.DataSource;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.ByteArrayOutputStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The README's quickstart as a new user pastes it: compiled as it stands against the published modules, then run on
 * the machine's PostgreSQL. A quickstart that needs an edit to compile, or fails when run, fails this test.
 */
class ReadmeQuickstartTest {
    @Test
    void theQuickstartCompilesAsPastedAndRuns(@TempDir Path dir) throws Exception {
        String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
        int section = readme.indexOf("## Quickstart");
        assertThat(section).as("the README has a quickstart").isNotNegative();
        int start = readme.indexOf("```java\n", section) + "```java\n".length();
        String source = readme.substring(start, readme.indexOf("```", start));
        assertThat(source).contains("public class Quickstart");
        Path file = dir.resolve("Quickstart.java");
        Files.writeString(file, source, StandardCharsets.UTF_8);

        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        int exit = javac.run(null, null, errors, "-d", dir.toString(), "-classpath",
                System.getProperty("java.class.path"), "-Xlint:none", file.toString());
        assertThat(exit).as("javac: " + errors.toString(StandardCharsets.UTF_8)).isZero();

        try (URLClassLoader loader = new URLClassLoader(new URL[]{dir.toUri().toURL()}, getClass().getClassLoader())) {
            Class<?> quickstart = loader.loadClass("Quickstart");
            quickstart.getMethod("run", DataSource.class).invoke(null, DatabaseAccess.postgres());
        }
    }
}
