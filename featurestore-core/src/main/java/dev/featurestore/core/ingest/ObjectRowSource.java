package dev.featurestore.core.ingest;

import dev.featurestore.InvalidDataException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Java records (by record component) and beans (by getter), read through method handles
 * resolved once per class. Maps among the objects are read as map rows.
 */
final class ObjectRowSource implements RowSource {
  /** Property names and accessors of one class. */
  static final class Accessors {
    final String[] names;
    final MethodHandle[] getters;

    Accessors(String[] names, MethodHandle[] getters) {
      this.names = names;
      this.getters = getters;
    }
  }

  private static final ClassValue<Accessors> ACCESSORS = new ClassValue<>() {
    @Override
    protected Accessors computeValue(Class<?> type) {
      return accessorsOf(type);
    }
  };

  private final Iterator<?> objects;
  private long number;

  ObjectRowSource(Iterable<?> objects) {
    this.objects = objects.iterator();
  }

  @Override
  public String kind() {
    return "objects";
  }

  @Override
  public boolean snakeCaseNames() {
    return true;
  }

  @Override
  public boolean next(RawRow row) {
    if (!objects.hasNext()) {
      return false;
    }
    Object object = objects.next();
    row.clear(++number);
    if (object == null) {
      throw new InvalidDataException("Cannot ingest row " + number + ": row is null", number, null);
    }
    if (object instanceof Map<?, ?>) {
      for (Map.Entry<?, ?> e : ((Map<?, ?>) object).entrySet()) {
        row.add(String.valueOf(e.getKey()), e.getValue());
      }
      return true;
    }
    Accessors accessors;
    try {
      accessors = ACCESSORS.get(object.getClass());
    } catch (IllegalArgumentException e) {
      throw new InvalidDataException("Cannot ingest row " + number + ": " + e.getMessage(), number, null, e);
    }
    row.useLayout(accessors.names, accessors);
    Object[] values = row.values;
    MethodHandle[] getters = accessors.getters;
    for (int i = 0; i < getters.length; i++) {
      try {
        values[i] = getters[i].invokeExact(object);
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable e) {
        throw new InvalidDataException("Cannot ingest row " + number + ": cannot read property " + accessors.names[i] + " of "
            + object.getClass().getName() + ": " + e, number, accessors.names[i], e);
      }
    }
    return true;
  }

  private static Accessors accessorsOf(Class<?> type) {
    List<String> names = new ArrayList<>();
    List<Method> methods = new ArrayList<>();
    if (type.isRecord()) {
      for (RecordComponent component : type.getRecordComponents()) {
        names.add(component.getName());
        methods.add(component.getAccessor());
      }
    } else {
      // getters in name order: getMethods() has no defined order
      java.util.TreeMap<String, Method> sorted = new java.util.TreeMap<>();
      for (Method m : type.getMethods()) {
        if (m.getParameterCount() != 0 || Modifier.isStatic(m.getModifiers()) || m.getDeclaringClass() == Object.class) {
          continue;
        }
        String property = propertyName(m);
        if (property != null) {
          sorted.putIfAbsent(property, m);
        }
      }
      names.addAll(sorted.keySet());
      methods.addAll(sorted.values());
    }
    if (names.isEmpty()) {
      throw new IllegalArgumentException("no record components or getters in class: " + type.getName());
    }
    MethodHandles.Lookup lookup = MethodHandles.lookup();
    MethodHandle[] getters = new MethodHandle[methods.size()];
    for (int i = 0; i < getters.length; i++) {
      Method m = methods.get(i);
      try {
        m.setAccessible(true);
        getters[i] = lookup.unreflect(m).asType(MethodType.methodType(Object.class, Object.class));
      } catch (ReflectiveOperationException | RuntimeException e) {
        throw new IllegalArgumentException("cannot access property " + names.get(i) + " of class: " + type.getName());
      }
    }
    return new Accessors(names.toArray(new String[0]), getters);
  }

  /** {@code getEntityId} -> {@code entityId}, {@code isActive} (boolean) -> {@code active}; else null. */
  private static String propertyName(Method m) {
    String name = m.getName();
    String rest;
    if (name.startsWith("get") && name.length() > 3 && m.getReturnType() != void.class) {
      rest = name.substring(3);
    } else if (name.startsWith("is") && name.length() > 2
        && (m.getReturnType() == boolean.class || m.getReturnType() == Boolean.class)) {
      rest = name.substring(2);
    } else {
      return null;
    }
    if (rest.length() > 1 && Character.isUpperCase(rest.charAt(0)) && Character.isUpperCase(rest.charAt(1))) {
      return rest; // getURL -> URL, as java.beans does
    }
    return Character.toLowerCase(rest.charAt(0)) + rest.substring(1);
  }

  @Override
  public void close() {}
}
