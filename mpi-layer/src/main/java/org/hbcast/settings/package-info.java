/**
 * hbcast's settings, each declared once (environment variable, system property, type, unit,
 * default, meaning), and its logging through the JDK's {@code System.Logger}.
 */
package org.hbcast.settings;
