package io.github.lockmanager.spring.boot;

import io.github.lockmanager.LockEventListener;
import io.github.lockmanager.LockLossListener;
import io.github.lockmanager.LockManager;
import io.github.lockmanager.LockManagerException;
import io.github.lockmanager.admin.LockAdmin;
import io.github.lockmanager.admin.LockAdminServlet;
import io.github.lockmanager.engine.LockManagerBuilder;
import io.github.lockmanager.micrometer.LockManagerMetrics;
import io.github.lockmanager.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.health.ConditionalOnEnabledHealthIndicator;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Role;
import org.springframework.util.ClassUtils;

import java.util.List;

/**
 * One {@link LockManager} for the application, on the store {@code lockmanager.store} names (by default the one client
 * bean the application has), closed with the application context: holders are interrupted, their locks released and
 * the manager's threads stopped. Every {@link LockEventListener} and {@link LockLossListener} bean is told, and every
 * {@link LockManagerBuilderCustomizer} runs before the manager is built. A {@link LockStore} or {@link LockManager}
 * bean of the application's own replaces the one made here.
 *
 * <p>With Micrometer its meters are bound to the application's registries; with Actuator the {@code locks} endpoint
 * and the {@code lockManager} health indicator are there; with {@code lockmanager.admin.enabled=true} in a servlet
 * application the admin page is served under {@code lockmanager.admin.path}.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.autoconfigure.aop.AopAutoConfiguration"})
@ConditionalOnProperty(prefix = "lockmanager", name = "enabled", havingValue = "true", matchIfMissing = true)
@EnableConfigurationProperties(LockManagerProperties.class)
public class LockManagerAutoConfiguration {
    private static final Logger log = LoggerFactory.getLogger(LockManagerAutoConfiguration.class);

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockStore lockManagerStore(LockManagerProperties properties, ListableBeanFactory beans) {
        return StoreSelection.build(properties, beans);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    LockManager lockManager(LockManagerProperties properties, LockStore store,
                            ObjectProvider<LockEventListener> eventListeners,
                            ObjectProvider<LockLossListener> lossListeners,
                            ObjectProvider<LockManagerBuilderCustomizer> customizers) throws LockManagerException {
        LockManagerBuilder builder = LockManagerBuilder.newBuilder().store(store);
        Settings.apply("client-id", properties.getClientId(), builder::clientId);
        Settings.apply("farm-id", properties.getFarmId(), builder::farmId);
        Settings.apply("node-id", properties.getNodeId(), builder::nodeId);
        Settings.apply("lease", properties.getLease(), builder::lease);
        Settings.apply("renewal-interval", properties.getRenewalInterval(), builder::renewalInterval);
        Settings.apply("abort-poll-interval", properties.getAbortPollInterval(), builder::abortPollInterval);
        Settings.apply("wait-poll-interval", properties.getWaitPollInterval(), builder::waitPollInterval);
        Settings.apply("fair", properties.getFair(), builder::fair);
        Settings.apply("purge-interval", properties.getPurgeInterval(), builder::purgeInterval);
        Settings.apply("renewal-batch-size", properties.getRenewalBatchSize(), builder::renewalBatchSize);
        Settings.apply("default-level", properties.getDefaultLevel(), builder::defaultLevel);
        Settings.apply("shutdown-timeout", properties.getShutdownTimeout(), builder::shutdownTimeout);
        Settings.apply("path-separator", properties.getPathSeparator(), builder::pathSeparator);
        Settings.apply("held-too-long-threshold", properties.getHeldTooLongThreshold(), builder::heldTooLongThreshold);
        Settings.apply("register-mbean", properties.getRegisterMbean(), builder::registerMBean);
        List<LockEventListener> events = eventListeners.orderedStream().toList();
        if (!events.isEmpty()) {
            builder.eventListener(EventListeners.of(events));
        }
        List<LockLossListener> losses = lossListeners.orderedStream().toList();
        if (!losses.isEmpty()) {
            builder.lossListener((lock, holder, reason) -> losses.forEach(l -> l.lockLost(lock, holder, reason)));
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        try {
            return builder.build();
        } catch (IllegalStateException e) {
            if (properties.getRenewalInterval() != null && e.getMessage().startsWith("renewalInterval")) {
                throw Settings.invalid("renewal-interval", properties.getRenewalInterval(), e.getMessage());
            }
            throw e;
        }
    }

    @Bean
    @Role(BeanDefinition.ROLE_INFRASTRUCTURE)
    static ClusterLockedAdvisor clusterLockedAdvisor(ObjectProvider<LockManager> manager, ListableBeanFactory beans) {
        return new ClusterLockedAdvisor(manager, beans);
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.github.lockmanager.micrometer.LockManagerMetrics",
            "io.micrometer.core.instrument.MeterRegistry"})
    static class MetricsConfiguration {
        @Bean
        @ConditionalOnMissingBean
        LockManagerMetrics lockManagerMetrics() {
            return new LockManagerMetrics();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.health.HealthIndicator")
    @ConditionalOnEnabledHealthIndicator("lockManager")
    static class HealthConfiguration {
        @Bean
        RenewalRecord lockManagerRenewalRecord() {
            return new RenewalRecord();
        }

        @Bean
        @ConditionalOnMissingBean(name = "lockManagerHealthIndicator")
        LockManagerHealthIndicator lockManagerHealthIndicator(LockManager manager, RenewalRecord renewals) {
            return new LockManagerHealthIndicator(manager, renewals);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    @ConditionalOnAvailableEndpoint(endpoint = LocksEndpoint.class)
    static class EndpointConfiguration {
        @Bean
        @ConditionalOnMissingBean
        LocksEndpoint locksEndpoint(LockManager manager) {
            return new LocksEndpoint(manager);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
    @ConditionalOnAvailableEndpoint(endpoint = LockWaitersEndpoint.class)
    static class WaitersEndpointConfiguration {
        @Bean
        @ConditionalOnMissingBean
        LockWaitersEndpoint lockWaitersEndpoint(LockManager manager) {
            return new LockWaitersEndpoint(manager);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"org.springframework.integration.leader.Candidate",
            "io.github.lockmanager.spring.integration.LockManagerLeaderInitiator"})
    @ConditionalOnProperty(prefix = "lockmanager.leader", name = "enabled", havingValue = "true")
    static class LeaderConfiguration {
        @Bean
        @ConditionalOnMissingBean
        LeaderInitiators lockManagerLeaderInitiators(LockManager manager,
                                                     org.springframework.beans.factory.ObjectProvider<
                                                             org.springframework.integration.leader.Candidate> candidates,
                                                     org.springframework.context.ApplicationEventPublisher events) {
            return new LeaderInitiators(manager, candidates.orderedStream().toList(), events);
        }

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnClass(name = "org.springframework.boot.actuate.endpoint.annotation.Endpoint")
        @ConditionalOnAvailableEndpoint(endpoint = LockLeadersEndpoint.class)
        static class LeadersEndpointConfiguration {
            @Bean
            @ConditionalOnMissingBean
            LockLeadersEndpoint lockLeadersEndpoint(LockManager manager, LeaderInitiators initiators) {
                return new LockLeadersEndpoint(manager, initiators);
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"io.github.lockmanager.admin.LockAdminServlet", "jakarta.servlet.http.HttpServlet"})
    @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
    @ConditionalOnProperty(prefix = "lockmanager.admin", name = "enabled", havingValue = "true")
    static class AdminPageConfiguration {
        @Bean
        ServletRegistrationBean<LockAdminServlet> lockManagerAdminServlet(LockManagerProperties properties,
                                                                          LockStore store, ListableBeanFactory beans) {
            LockManagerProperties.Admin page = properties.getAdmin();
            LockAdmin.Builder admin = LockAdmin.builder(store);
            Settings.apply("client-id", properties.getClientId(), admin::clientId);
            Settings.apply("farm-id", properties.getFarmId(), admin::farmId);
            Settings.apply("held-too-long-threshold", properties.getHeldTooLongThreshold(),
                    admin::heldTooLongThreshold);
            Settings.apply("admin.snapshot-ttl", page.getSnapshotTtl(), admin::snapshotTtl);
            String path = page.getPath();
            if (path == null || !path.startsWith("/") || path.endsWith("/") || path.contains("*")) {
                throw Settings.invalid("admin.path", path, "a path such as /lockmanager: it starts with '/', does "
                        + "not end with one and has no '*'");
            }
            String role = page.getActionsRole() == null || page.getActionsRole().isBlank() ? null
                    : page.getActionsRole();
            LockAdminServlet servlet = new LockAdminServlet(admin.build(), page.isActionsEnabled(), role);
            ServletRegistrationBean<LockAdminServlet> registration = new ServletRegistrationBean<>(servlet,
                    path + "/*");
            registration.setName("lockManagerAdmin");
            if (!hasWebSecurity(beans)) {
                log.warn("The lock admin page at {}/ shows every lock of this application's client to anyone who can "
                        + "reach it: no Spring Security filter chain is configured. Protect {}/** with the "
                        + "application's security{}", path, path, page.isActionsEnabled()
                        ? "; until then its actions cannot be used, since nobody can sign in" : "");
            }
            return registration;
        }

        private static boolean hasWebSecurity(ListableBeanFactory beans) {
            String chain = "org.springframework.security.web.SecurityFilterChain";
            return ClassUtils.isPresent(chain, null)
                    && beans.getBeanNamesForType(ClassUtils.resolveClassName(chain, null)).length > 0;
        }
    }

    /** {@code lockmanager.admin.enabled=true} without the page's module: a failed start saying so, not a silent 404. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnProperty(prefix = "lockmanager.admin", name = "enabled", havingValue = "true")
    @ConditionalOnMissingClass("io.github.lockmanager.admin.LockAdminServlet")
    static class AdminPageMissing {
        AdminPageMissing() {
            throw new IllegalStateException("lockmanager.admin.enabled=true, but lockmanager-admin is not on the class "
                    + "path: add the dependency io.github.lockmanager:lockmanager-admin, or remove the property");
        }
    }
}
