"""PPO with the clipped objective for continuous actions, in the manner of CleanRL's
ppo_continuous_action.py, on a vector of toy "reach the target" environments instead of
MuJoCo: orthogonally initialised actor and critic MLPs, a state-independent log-std
nn.Parameter whose .exp() is the scale of torch.distributions.Normal, log_prob(...).sum(-1)
and entropy().sum(-1), rollout buffers written step by step, GAE(lambda) in a Python loop,
ratio = (new_logp - old_logp).exp(), -torch.min(ratio * adv, torch.clamp(ratio, 1 - eps,
1 + eps) * adv).mean(), an MSE value loss, several epochs of minibatches from a
permutation, Adam with eps=1e-5, a linearly annealed learning rate and clip_grad_norm_.

Actions are ``mean + std * z`` with ``z`` and the minibatch permutations from a numpy
generator, so both libraries act alike; the mean episode return must rise (the recorded
``neg_returns`` fall).
"""
import numpy as np

from . import load_numpy_state, numpy_state


class ReachEnvs:
    """``n`` independent 1-d point masses: the observation is (position, target), the
    action moves the mass by 0.25 * clip(action, -1, 1), the reward is minus the distance
    to the target after the move. Episodes last ``horizon`` steps (then truncated and
    reset, as gym's vector environments do)."""

    def __init__(self, n, rng, horizon=16):
        self.n, self.rng, self.horizon = n, rng, horizon
        self.single_observation_shape, self.single_action_shape = (2,), (1,)

    def reset(self):
        self.t = 0
        self.position = self.rng.uniform(-1, 1, self.n)
        self.target = self.rng.uniform(-1, 1, self.n)
        return self._observe()

    def _observe(self):
        return np.stack([self.position, self.target], 1).astype(np.float32)

    def step(self, action):
        self.position = self.position + 0.25 * np.clip(action[:, 0], -1.0, 1.0)
        reward = -np.abs(self.position - self.target)
        self.t += 1
        done = np.full(self.n, self.t == self.horizon)
        observation = self.reset() if done.all() else self._observe()
        return observation, reward.astype(np.float32), done


def define(torch):
    nn = torch.nn

    def layer_init(layer, std=np.sqrt(2), bias_const=0.0):
        torch.nn.init.orthogonal_(layer.weight, std)
        torch.nn.init.constant_(layer.bias, bias_const)
        return layer

    class Agent(nn.Module):
        def __init__(self, obs_dim, act_dim, hidden=32):
            super().__init__()
            self.critic = nn.Sequential(
                layer_init(nn.Linear(obs_dim, hidden)), nn.Tanh(),
                layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
                layer_init(nn.Linear(hidden, 1), std=1.0))
            self.actor_mean = nn.Sequential(
                layer_init(nn.Linear(obs_dim, hidden)), nn.Tanh(),
                layer_init(nn.Linear(hidden, hidden)), nn.Tanh(),
                layer_init(nn.Linear(hidden, act_dim), std=0.01))
            self.actor_logstd = nn.Parameter(torch.zeros(1, act_dim))

        def get_value(self, x):
            return self.critic(x)

        def get_action_and_value(self, x, z=None, action=None):
            """(action, its log-probability, entropy, value); a new action is
            mean + std * z."""
            action_mean = self.actor_mean(x)
            action_std = self.actor_logstd.expand_as(action_mean).exp()
            probs = torch.distributions.Normal(action_mean, action_std)
            if action is None:
                action = action_mean + action_std * z
            return (action, probs.log_prob(action).sum(-1), probs.entropy().sum(-1),
                    self.critic(x))

    return Agent


def main(torch, num_iterations=12, num_envs=8, num_steps=16, update_epochs=4,
         num_minibatches=4, learning_rate=3e-3, gamma=0.9, gae_lambda=0.95, clip_coef=0.2,
         ent_coef=0.0, vf_coef=0.5, max_grad_norm=0.5, state=None, rng=None):
    if rng is None:
        rng = np.random.default_rng()
    F = torch.nn.functional
    torch.manual_seed(1)
    envs = ReachEnvs(num_envs, rng, horizon=num_steps)
    obs_dim, act_dim = envs.single_observation_shape[0], envs.single_action_shape[0]
    agent = define(torch)(obs_dim, act_dim)
    initial = numpy_state(agent)
    if state is not None:
        load_numpy_state(torch, agent, state)
    optimizer = torch.optim.Adam(agent.parameters(), lr=learning_rate, eps=1e-5)
    batch_size = num_envs * num_steps
    minibatch_size = batch_size // num_minibatches

    obs = torch.zeros((num_steps, num_envs, obs_dim))
    actions = torch.zeros((num_steps, num_envs, act_dim))
    logprobs = torch.zeros((num_steps, num_envs))
    rewards = torch.zeros((num_steps, num_envs))
    dones = torch.zeros((num_steps, num_envs))
    values = torch.zeros((num_steps, num_envs))

    next_obs = torch.Tensor(envs.reset())
    next_done = torch.zeros(num_envs)
    neg_returns, losses, v_losses, clipfracs, approx_kls, stds = [], [], [], [], [], []
    for iteration in range(1, num_iterations + 1):
        frac = 1.0 - (iteration - 1.0) / num_iterations
        optimizer.param_groups[0]["lr"] = frac * learning_rate

        for step in range(num_steps):
            obs[step] = next_obs
            dones[step] = next_done
            with torch.no_grad():
                z = torch.from_numpy(rng.standard_normal((num_envs, act_dim)).astype(np.float32))
                action, logprob, _, value = agent.get_action_and_value(next_obs, z)
                values[step] = value.flatten()
            actions[step] = action
            logprobs[step] = logprob
            next_obs, reward, done = envs.step(action.numpy())
            rewards[step] = torch.tensor(reward).view(-1)
            next_obs, next_done = torch.Tensor(next_obs), torch.Tensor(done.astype(np.float32))
        neg_returns.append(-rewards.sum(0).mean().item())

        with torch.no_grad():
            next_value = agent.get_value(next_obs).reshape(1, -1)
            advantages = torch.zeros_like(rewards)
            lastgaelam = 0
            for t in reversed(range(num_steps)):
                if t == num_steps - 1:
                    nextnonterminal = 1.0 - next_done
                    nextvalues = next_value
                else:
                    nextnonterminal = 1.0 - dones[t + 1]
                    nextvalues = values[t + 1]
                delta = rewards[t] + gamma * nextvalues * nextnonterminal - values[t]
                advantages[t] = lastgaelam = (delta + gamma * gae_lambda * nextnonterminal
                                              * lastgaelam)
            returns = advantages + values

        b_obs = obs.reshape((-1, obs_dim))
        b_logprobs = logprobs.reshape(-1)
        b_actions = actions.reshape((-1, act_dim))
        b_advantages = advantages.reshape(-1)
        b_returns = returns.reshape(-1)

        for epoch in range(update_epochs):
            b_inds = rng.permutation(batch_size)
            for start in range(0, batch_size, minibatch_size):
                mb_inds = torch.from_numpy(b_inds[start:start + minibatch_size])
                _, newlogprob, entropy, newvalue = agent.get_action_and_value(
                    b_obs[mb_inds], action=b_actions[mb_inds])
                logratio = newlogprob - b_logprobs[mb_inds]
                ratio = logratio.exp()
                with torch.no_grad():
                    approx_kl = ((ratio - 1) - logratio).mean()
                    clipfracs.append(((ratio - 1.0).abs() > clip_coef).float().mean().item())

                mb_advantages = b_advantages[mb_inds]
                mb_advantages = (mb_advantages - mb_advantages.mean()) / (mb_advantages.std() + 1e-8)
                surr1 = ratio * mb_advantages
                surr2 = torch.clamp(ratio, 1 - clip_coef, 1 + clip_coef) * mb_advantages
                pg_loss = -torch.min(surr1, surr2).mean()
                v_loss = F.mse_loss(newvalue.view(-1), b_returns[mb_inds])
                loss = pg_loss - ent_coef * entropy.mean() + v_loss * vf_coef

                optimizer.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(agent.parameters(), max_grad_norm)
                optimizer.step()
        # NOTE: not pg_loss alone: with normalized advantages it is a small difference of
        # O(1) terms, whose float rounding differs between libraries by more than 1e-4
        losses.append(loss.item())
        v_losses.append(v_loss.item())
        approx_kls.append(approx_kl.item())
        stds.append(agent.actor_logstd.exp().item())
    return {"neg_returns": neg_returns, "losses": losses, "v_losses": v_losses,
            "clipfracs": clipfracs, "approx_kls": approx_kls, "stds": stds,
            "state": initial}
