import { z } from 'zod';

/** A string in which an empty value means "not set", so `${VAR:-}` can switch a feature off. */
export const optionalSecret = z
  .string()
  .optional()
  .transform((value) => (value === '' ? undefined : value));

/** A list of Discord ids, empty by default. */
export const ids = (what: string) => z.array(z.string().min(1)).default([]).describe(`${what} (Discord ids are strings: quote them in YAML).`);

/** A positive duration in seconds with its default. */
export const seconds = (what: string, fallback: number) => z.number().positive().default(fallback).describe(`${what}, in seconds (fractions allowed).`);
