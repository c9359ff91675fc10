import { ScopeSet } from '../scope';
import { ApiKeyAttributes } from './key-attributes';
import { QuotaPolicy, RateLimit } from './usage-limits';

export type ApiKeyState = 'active' | 'revoked' | 'expired';

/** What the service assigns a key, beside the attributes its owner sets. */
export interface ApiKeySystemFields {
  id: string;
  keyPrefix: string;
  keyHash: string;
  userId: string;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  createdAt: Date;
  /** The key that replaced this one in a roll; null until then. */
  replacedBy: string | null;
  /**
   * The budget the key's rate window and balance belong to: its own id when
   * created, its predecessor's after a roll, so both keys of an overlap draw
   * on one budget. Absent: the key's own id.
   */
  budgetId?: string;
}

export type ApiKeyProps = ApiKeyAttributes & ApiKeySystemFields;

/** A stored API key (spec 2.1). Its state is derived from its dates and a clock. */
export class ApiKey {
  private constructor(private readonly props: ApiKeyProps) {}

  static restore(props: ApiKeyProps): ApiKey {
    return new ApiKey({ ...props });
  }

  /** What the owner set (absent limits as null): what a roll carries over and the trail records. */
  get attributes(): ApiKeyAttributes {
    const { id, keyPrefix, keyHash, userId, lastUsedAt, revokedAt, createdAt, replacedBy, budgetId, ...attributes } = this.props;
    return { ...attributes, rateLimit: this.rateLimit, quota: this.quota };
  }

  get id(): string {
    return this.props.id;
  }
  get name(): string {
    return this.props.name;
  }
  get keyPrefix(): string {
    return this.props.keyPrefix;
  }
  get keyHash(): string {
    return this.props.keyHash;
  }
  get userId(): string {
    return this.props.userId;
  }
  get scopes(): ScopeSet {
    return this.props.scopes;
  }
  get expiresAt(): Date | null {
    return this.props.expiresAt;
  }
  get lastUsedAt(): Date | null {
    return this.props.lastUsedAt;
  }
  get revokedAt(): Date | null {
    return this.props.revokedAt;
  }
  get createdAt(): Date {
    return this.props.createdAt;
  }
  get replacedBy(): string | null {
    return this.props.replacedBy;
  }
  get rateLimit(): RateLimit | null {
    return this.props.rateLimit ?? null;
  }
  get quota(): QuotaPolicy | null {
    return this.props.quota ?? null;
  }
  get budgetId(): string {
    return this.props.budgetId ?? this.props.id;
  }

  stateAt(now: Date): ApiKeyState {
    if (this.props.revokedAt !== null) return 'revoked';
    if (this.props.expiresAt !== null && this.props.expiresAt.getTime() <= now.getTime()) return 'expired';
    return 'active';
  }

  isUsableAt(now: Date): boolean {
    return this.stateAt(now) === 'active';
  }

  /**
   * Whether the key counts against MAX_KEYS_PER_USER: every non-revoked key,
   * expired ones too (an edit can revive them), except a rolled key past its
   * overlap, which can never be used or edited again.
   */
  countsTowardLimitAt(now: Date): boolean {
    if (this.props.replacedBy !== null) return this.isUsableAt(now);
    return this.props.revokedAt === null;
  }

  ownedBy(userId: string): boolean {
    return this.props.userId === userId;
  }
}
